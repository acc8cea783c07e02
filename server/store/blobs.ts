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

/** How many chunks a reader keeps (its most recent), for the many small reads of a ZIP's directory. */
const RECENT_CHUNKS = 8;

function chunkStore(db: Db): BlobStore {
  const recent = new Map<string, Buffer>();
  const remember = (key: string, data: Buffer) => {
    recent.delete(key);
    recent.set(key, data);
    if (recent.size > RECENT_CHUNKS) recent.delete(recent.keys().next().value!);
  };
  return {
    create(id) {
      let seq = 0;
      let pending: Buffer[] = [];
      let size = 0;
      const flush = async (all: boolean) => {
        let buf = Buffer.concat(pending);
        while (buf.length >= CHUNK_BYTES || (all && buf.length > 0)) {
          const part = buf.subarray(0, CHUNK_BYTES);
          await db
            .insertInto('BlobChunk')
            .values({ blobId: id, seq, data: Buffer.from(part), createdAt: new Date() })
            .execute();
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
        for (let seq = first; seq <= last && end > start; ) {
          // A ZIP's central directory is read a few bytes at a time: serve those from the chunks
          // read last instead of fetching a MiB from the database for each.
          const cached = recent.get(`${id}:${seq}`);
          const rows = cached
            ? [{ seq, data: cached }]
            : await db
                .selectFrom('BlobChunk')
                .select(['seq', 'data'])
                .where('blobId', '=', id)
                .where('seq', '>=', seq)
                .where('seq', '<=', Math.min(last, seq + 7))
                .orderBy('seq')
                .execute();
          if (!rows.length) return;
          for (const r of rows) {
            const data = Buffer.from(r.data);
            remember(`${id}:${r.seq}`, data);
            const at = r.seq * CHUNK_BYTES;
            yield data.subarray(Math.max(0, start - at), Math.min(data.length, end - at));
          }
          seq = rows[rows.length - 1]!.seq + 1;
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
