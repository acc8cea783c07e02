// Blob bytes (uploaded exports): where every instance can read them. On SQLite (a desktop) a file
// under `${DATA_DIR}/blobs`; on PostgreSQL (a team host, several instances) rows of 1 MiB chunks.
// Reads are by byte range, so a ZIP's central directory or one entry is read without the rest.
import { createReadStream, mkdirSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { Db, Provider } from './database.js';

export const CHUNK_BYTES = 1024 * 1024;

/**
 * A new blob, written as a stream (`stream.pipeline` into it). It is complete once it finished;
 * destroyed before that (an aborted upload, an error, a refusal), it waits for its last write to
 * settle, removes what it wrote, and only then emits 'close': a failed upload leaves nothing.
 */
export type BlobSink = Writable;

/** Resolves once `sink` has closed: after a failure, once its partial blob is gone. */
export const sinkClosed = (sink: Writable): Promise<void> =>
  sink.closed
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        sink.once('close', () => resolve());
      });

export interface BlobStore {
  create(id: string): BlobSink;
  read(id: string, start: number, end: number): Readable;
  remove(id: string): Promise<void>;
}

const fileOf = (dir: string, id: string) => {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`not a blob id: ${id}`);
  return path.join(dir, id);
};

/** The writes a sink has in flight, awaited before it removes its partial blob. */
const settled = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    () => undefined,
  );

/** Writes the whole of `data` (a write to a file may take less than it was given). */
async function writeAll(fh: FileHandle, data: Buffer): Promise<void> {
  for (let at = 0; at < data.length; ) at += (await fh.write(data, at, data.length - at)).bytesWritten;
}

/**
 * A file written through a FileHandle that the sink owns: unlike `fs.createWriteStream`, whose
 * destroy during a write turns that write's ERR_STREAM_DESTROYED into an 'error' nobody listens to
 * (issue 22: an upload cut off mid-write ended the process), it settles its own writes, closes the
 * file and removes it before 'close'.
 */
class FileSink extends Writable {
  private readonly handle: Promise<FileHandle>;
  private inFlight: Promise<unknown> = Promise.resolve();
  private complete = false;

  constructor(private readonly file: string) {
    super({ highWaterMark: CHUNK_BYTES });
    this.handle = open(file, 'wx', 0o600);
    this.handle.catch(() => undefined); // reported by the first write (or ignored by destroy)
  }

  private run(cb: (err?: Error | null) => void, work: (fh: FileHandle) => Promise<unknown>) {
    this.inFlight = this.handle.then(work);
    this.inFlight.then(
      () => cb(),
      (err: unknown) => cb(err as Error),
    );
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void) {
    this.run(cb, (fh) => writeAll(fh, chunk));
  }

  override _writev(chunks: { chunk: Buffer }[], cb: (err?: Error | null) => void) {
    this.run(cb, (fh) => writeAll(fh, Buffer.concat(chunks.map((c) => c.chunk))));
  }

  override _final(cb: (err?: Error | null) => void) {
    this.run(cb, async (fh) => {
      await fh.close();
      this.complete = true;
    });
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void) {
    void (async () => {
      await settled(this.inFlight);
      if (this.complete) return;
      const fh = await this.handle.catch(() => null);
      if (!fh) return; // never opened (it may be another's file: 'wx')
      await settled(fh.close());
      await rm(this.file, { force: true });
    })().then(
      () => cb(err),
      (e: unknown) => cb(err ?? (e as Error)),
    );
  }
}

function fileStore(dir: string): BlobStore {
  return {
    create(id) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return new FileSink(fileOf(dir, id));
    },
    read: (id, start, end) => (end > start ? createReadStream(fileOf(dir, id), { start, end: end - 1, highWaterMark: 256 * 1024 }) : Readable.from([])),
    async remove(id) {
      await rm(fileOf(dir, id), { force: true });
    },
  };
}

/** BlobChunk rows of CHUNK_BYTES, inserted as they fill; destroyed early, its rows are deleted. */
class ChunkSink extends Writable {
  private pending: Buffer[] = [];
  private size = 0;
  private seq = 0;
  private inFlight: Promise<unknown> = Promise.resolve();
  private complete = false;

  constructor(
    private readonly db: Db,
    private readonly id: string,
  ) {
    super({ highWaterMark: CHUNK_BYTES });
  }

  private async flush(all: boolean) {
    let buf = Buffer.concat(this.pending, this.size);
    while (buf.length >= CHUNK_BYTES || (all && buf.length > 0)) {
      const part = buf.subarray(0, CHUNK_BYTES);
      await this.db.insertInto('BlobChunk').values({ blobId: this.id, seq: this.seq, data: part, createdAt: new Date() }).execute();
      this.seq += 1;
      buf = buf.subarray(part.length);
    }
    this.pending = buf.length ? [buf] : [];
    this.size = buf.length;
  }

  private run(cb: (err?: Error | null) => void, work: () => Promise<unknown>) {
    this.inFlight = work();
    this.inFlight.then(
      () => cb(),
      (err: unknown) => cb(err as Error),
    );
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void) {
    this.pending.push(chunk);
    this.size += chunk.length;
    if (this.size < CHUNK_BYTES) return cb();
    this.run(cb, () => this.flush(false));
  }

  override _final(cb: (err?: Error | null) => void) {
    this.run(cb, async () => {
      await this.flush(true);
      this.complete = true;
    });
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void) {
    this.pending = [];
    void (async () => {
      await settled(this.inFlight);
      if (!this.complete) await this.db.deleteFrom('BlobChunk').where('blobId', '=', this.id).execute();
    })().then(
      () => cb(err),
      (e: unknown) => cb(err ?? (e as Error)),
    );
  }
}

/**
 * Chunks fetched by one query of a sequential read. Each arrives as hex text (twice its size) and
 * is parsed into a Buffer: 2 MiB a query keeps that transient within a few MiB, where 8 MiB a
 * query held ~50 MiB at once while a 200 MB export streamed through (docs/ingest.md, "Memory").
 */
const ROWS_PER_READ = 2;

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
    create: (id) => new ChunkSink(db, id),
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
                .where('seq', '<=', Math.min(last, seq + ROWS_PER_READ - 1))
                .orderBy('seq')
                .execute();
          if (!rows.length) return;
          for (const r of rows) {
            const data = Buffer.isBuffer(r.data) ? r.data : Buffer.from(r.data);
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
