// Blob bytes (uploaded exports): where every instance can read them. On SQLite (a desktop) a file
// under `${DATA_DIR}/blobs`; on PostgreSQL (a team host, several instances) rows of 1 MiB chunks.
// Reads are by byte range, so a ZIP's central directory or one entry is read without the rest.
import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Db, Provider } from './database.js';

export const CHUNK_BYTES = 1024 * 1024;

export interface BlobWriter {
  write(chunk: Buffer): Promise<void>;
  /** Flushes what is left; the blob is complete. */
  close(): Promise<void>;
  /** Removes whatever was written (a refused or failed upload leaves nothing behind). */
  abort(): Promise<void>;
}

export interface BlobStore {
  create(id: string): BlobWriter;
  read(id: string, start: number, end: number): Readable;
  remove(id: string): Promise<void>;
}

const fileOf = (dir: string, id: string) => {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`not a blob id: ${id}`);
  return path.join(dir, id);
};

function fileStore(dir: string): BlobStore {
  return {
    create(id) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file = fileOf(dir, id);
      const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
      return {
        async write(chunk) {
          if (!out.write(chunk)) await once(out, 'drain');
        },
        async close() {
          out.end();
          await once(out, 'finish');
        },
        async abort() {
          out.destroy();
          rmSync(file, { force: true });
        },
      };
    },
    read: (id, start, end) => (end > start ? createReadStream(fileOf(dir, id), { start, end: end - 1, highWaterMark: 256 * 1024 }) : Readable.from([])),
    async remove(id) {
      rmSync(fileOf(dir, id), { force: true });
    },
  };
}

function chunkStore(db: Db): BlobStore {
  return {
    create(id) {
      let seq = 0;
      let pending: Buffer[] = [];
      let size = 0;
      const flush = async (all: boolean) => {
        let buf = Buffer.concat(pending);
        while (buf.length >= CHUNK_BYTES || (all && buf.length > 0)) {
          const part = buf.subarray(0, CHUNK_BYTES);
          await db.insertInto('BlobChunk').values({ blobId: id, seq, data: Buffer.from(part), createdAt: new Date() }).execute();
          seq += 1;
          buf = buf.subarray(part.length);
        }
        pending = buf.length ? [buf] : [];
        size = buf.length;
      };
      return {
        async write(chunk) {
          pending.push(chunk);
          size += chunk.length;
          if (size >= CHUNK_BYTES) await flush(false);
        },
        close: () => flush(true),
        async abort() {
          await db.deleteFrom('BlobChunk').where('blobId', '=', id).execute();
        },
      };
    },
    read(id, start, end) {
      async function* chunks() {
        const first = Math.floor(start / CHUNK_BYTES);
        const last = Math.floor((end - 1) / CHUNK_BYTES);
        for (let seq = first; seq <= last && end > start; seq += 8) {
          const rows = await db.selectFrom('BlobChunk').select(['seq', 'data']).where('blobId', '=', id).where('seq', '>=', seq).where('seq', '<=', Math.min(last, seq + 7)).orderBy('seq').execute();
          for (const r of rows) {
            const at = r.seq * CHUNK_BYTES;
            const data = Buffer.from(r.data);
            yield data.subarray(Math.max(0, start - at), Math.min(data.length, end - at));
          }
        }
      }
      return Readable.from(chunks());
    },
    async remove(id) {
      await db.deleteFrom('BlobChunk').where('blobId', '=', id).execute();
    },
  };
}

export function blobStore(db: Db, provider: Provider, dataDir: string): BlobStore {
  return provider === 'postgresql' ? chunkStore(db) : fileStore(path.join(dataDir, 'blobs'));
}
