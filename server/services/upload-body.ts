// The raw body of an upload (an export for POST /imports, an image for POST /media), streamed
// into a sink (a blob, or memory for an image) with `stream.pipeline`, so that whichever side
// fails (the client closes the socket, the body breaks off, the disk or the database errs), every
// stream of the chain is torn down and the sink's partial bytes are removed before the error is
// answered. Bounds, each with its answer (docs/ingest.md, "Bounds"):
// - past the byte limit: 413 with the connection closed (the rest of the body is not read, so the
//   connection cannot carry another request);
// - no byte for `UPLOAD_IDLE_SECONDS`: 408 with the connection closed;
// - a body that breaks off: 400 (if the client still listens); it may be sent again with the same
//   idempotency key: nothing was recorded under it.
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';
import { AppError, badRequest } from '../errors.js';
import { sinkClosed } from '../store/blobs.js';

/** An error met while receiving an upload, as the caller sees it: ours as they are, anything else a broken upload. */
export const brokenUpload = (err: unknown): AppError =>
  err instanceof AppError ? err : badRequest(`The upload did not arrive whole (${(err as Error).message}); send it again with the same idempotency_key.`);

export interface UploadBounds {
  /** The most bytes taken; past it, 413 with `tooLarge` as its message. */
  maxBytes: number;
  tooLarge: string;
  /** The longest wait for the next byte (ms); past it, 408. */
  idleMs: number;
}

/** The bounds of an export (`import`) or an image (`media`) upload, from the configuration. */
export function uploadBounds(config: Config, kind: 'import' | 'media'): UploadBounds {
  const idleMs = config.uploadIdleSeconds * 1000;
  return kind === 'import'
    ? { maxBytes: config.importMaxBytes, tooLarge: `The upload is larger than ${config.importMaxBytes} bytes (IMPORT_MAX_BYTES).`, idleMs }
    : { maxBytes: config.mediaMaxBytes, tooLarge: `The image is larger than ${config.mediaMaxBytes} bytes (MEDIA_MAX_BYTES).`, idleMs };
}

export const uploadStalled = (idleMs: number) =>
  badRequest(
    `The upload sent no byte for ${idleMs / 1000} s (UPLOAD_IDLE_SECONDS) and was dropped; nothing was kept. Send it again with the same idempotency_key.`,
    { status: 408, headers: { Connection: 'close' } },
  );

/**
 * Streams `body` into `sink`, handing each chunk to `onChunk` (a hash) on the way; returns the size
 * read. On any failure the chain is destroyed and this rejects only after `sink` has closed (so a
 * blob sink has removed its partial blob), with the AppError to answer.
 */
export async function receiveUpload(
  body: AsyncIterable<Buffer>,
  sink: Writable,
  bounds: UploadBounds,
  onChunk: (chunk: Buffer) => void = () => {},
): Promise<number> {
  let size = 0;
  const idle = new AbortController();
  const timer = setTimeout(() => idle.abort(uploadStalled(bounds.idleMs)), bounds.idleMs);
  sink.on('error', () => {}); // reported by pipeline; a late one (after it settled) must not end the process
  try {
    await pipeline(
      body,
      async function* meter(source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          timer.refresh();
          size += chunk.length;
          if (size > bounds.maxBytes) throw badRequest(bounds.tooLarge, { status: 413, headers: { Connection: 'close' } });
          onChunk(chunk);
          yield chunk;
        }
      },
      sink,
      { signal: idle.signal },
    );
  } catch (err) {
    sink.destroy();
    await sinkClosed(sink);
    throw brokenUpload(idle.signal.aborted ? idle.signal.reason : err);
  } finally {
    clearTimeout(timer);
  }
  return size;
}

/** A sink that keeps the body in memory (an image, bounded by MEDIA_MAX_BYTES); `bytes()` once it finished. */
export function memorySink(): Writable & { bytes(): Buffer } {
  const parts: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      parts.push(chunk);
      cb();
    },
    destroy(err, cb) {
      if (err || !sink.writableFinished) parts.length = 0; // a failed upload's bytes are let go at once
      cb(err);
    },
  });
  return Object.assign(sink, { bytes: () => Buffer.concat(parts) });
}
