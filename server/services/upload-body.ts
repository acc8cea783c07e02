// The raw body of an upload (an export for POST /imports, an image for POST /media), streamed
// into a sink (a blob, or memory for an image) with `stream.pipeline`, so that whichever side
// fails (the client closes the socket, the body breaks off, the disk or the database errs), every
// stream of the chain is torn down and the sink's partial bytes are removed before the error is
// answered. Bounds, each with its answer (docs/ingest.md, "Bounds"):
// - past the byte limit: 413 with the connection closed (the rest of the body is not read, so the
//   connection cannot carry another request);
// - no byte for `UPLOAD_IDLE_SECONDS`: 408 with the connection closed;
// - under `UPLOAD_MIN_BYTES_PER_SECOND` on average over the last `UPLOAD_RATE_WINDOW_SECONDS`
//   (checked once the upload has lasted that long; the time our sink keeps the bytes waiting is
//   not the client's): 408 with the connection closed. A trickle that never pauses long enough for
//   the idle deadline would otherwise hold its connection and its blob for ever;
// - more than `UPLOAD_MAX_CONCURRENT` uploads of one workspace at once (on this instance): 429
//   with `Retry-After`, before a byte of the body is read (`withUploadSlot`);
// - a body that breaks off: 400 (if the client still listens); it may be sent again with the same
//   idempotency key: nothing was recorded under it.
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';
import { AppError, badRequest, rateLimited } from '../errors.js';
import { sinkClosed } from '../store/blobs.js';
import type { Caller, ServiceDeps } from './context.js';

/** An error met while receiving an upload, as the caller sees it: ours as they are, anything else a broken upload. */
export const brokenUpload = (err: unknown): AppError =>
  err instanceof AppError ? err : badRequest(`The upload did not arrive whole (${(err as Error).message}); send it again with the same idempotency_key.`);

export interface UploadBounds {
  /** The most bytes taken; past it, 413 with `tooLarge` as its message. */
  maxBytes: number;
  tooLarge: string;
  /** The longest wait for the next byte (ms); past it, 408. */
  idleMs: number;
  /** The slowest average rate (bytes/s) over `rateWindowMs`, checked once the upload has lasted that long; 0: none. */
  minBytesPerSecond: number;
  rateWindowMs: number;
}

/** The bounds of an export (`import`) or an image (`media`) upload, from the configuration. */
export function uploadBounds(config: Config, kind: 'import' | 'media'): UploadBounds {
  const time = {
    idleMs: config.uploadIdleSeconds * 1000,
    minBytesPerSecond: config.uploadMinBytesPerSecond,
    rateWindowMs: config.uploadRateWindowSeconds * 1000,
  };
  return kind === 'import'
    ? { maxBytes: config.importMaxBytes, tooLarge: `The upload is larger than ${config.importMaxBytes} bytes (IMPORT_MAX_BYTES).`, ...time }
    : { maxBytes: config.mediaMaxBytes, tooLarge: `The image is larger than ${config.mediaMaxBytes} bytes (MEDIA_MAX_BYTES).`, ...time };
}

export const uploadStalled = (idleMs: number) =>
  badRequest(
    `The upload sent no byte for ${idleMs / 1000} s (UPLOAD_IDLE_SECONDS) and was dropped; nothing was kept. Send it again with the same idempotency_key.`,
    { status: 408, headers: { Connection: 'close' } },
  );

export const uploadTooSlow = (bytesPerSecond: number, bounds: UploadBounds) =>
  badRequest(
    `The upload arrived at ${bytesPerSecond} bytes/s over the last ${bounds.rateWindowMs / 1000} s, under the floor of ${bounds.minBytesPerSecond} bytes/s (UPLOAD_MIN_BYTES_PER_SECOND), and was dropped; nothing was kept. Send it again over a faster connection, with the same idempotency_key.`,
    { status: 408, headers: { Connection: 'close' } },
  );

/**
 * The rate floor: the average rate of the last `rateWindowMs` of the client's time (wall time
 * minus the time the sink kept a chunk waiting), from samples of the byte count taken at most
 * every twentieth of a window (so a fast upload keeps ~21 of them, not one per chunk).
 */
function rateFloor(bounds: UploadBounds, now: () => number = () => performance.now()) {
  const start = now();
  let sinkMs = 0;
  const step = bounds.rateWindowMs / 20;
  const samples: Array<{ at: number; bytes: number }> = [{ at: 0, bytes: 0 }];
  return {
    /** The sink held a chunk for `ms`: not the client's time. */
    held(ms: number) {
      sinkMs += ms;
    },
    /** `size` bytes have arrived in all; throws the 408 when the last window's average is under the floor. */
    arrived(size: number) {
      if (bounds.minBytesPerSecond <= 0) return;
      const at = now() - start - sinkMs;
      if (at - samples[samples.length - 1]!.at >= step) samples.push({ at, bytes: size });
      // Keep the newest sample at or before the window's start, and those after it.
      while (samples.length > 1 && samples[1]!.at <= at - bounds.rateWindowMs) samples.shift();
      if (at < bounds.rateWindowMs) return;
      const base = samples[0]!;
      const rate = Math.floor(((size - base.bytes) * 1000) / Math.max(1, at - base.at));
      if (rate < bounds.minBytesPerSecond) throw uploadTooSlow(rate, bounds);
    },
  };
}

/** Uploads in progress, per instance (its configuration) and workspace. */
const inProgress = new WeakMap<Config, Map<string, number>>();

/** Seconds a caller refused for too many uploads at once is told to wait. */
export const UPLOAD_SLOT_RETRY_SECONDS = 10;

/**
 * Runs `work` (the receiving and checking of one upload) holding one of the workspace's
 * `UPLOAD_MAX_CONCURRENT` slots; with none free, 429 `rate_limited` with Retry-After, before any
 * byte of the body is read (so the connection is closed: the unread body cannot be skipped).
 */
export async function withUploadSlot<T>(config: Config, workspaceId: string, work: () => Promise<T>): Promise<T> {
  let counts = inProgress.get(config);
  if (!counts) inProgress.set(config, (counts = new Map<string, number>()));
  const held = counts.get(workspaceId) ?? 0;
  if (held >= config.uploadMaxConcurrent) {
    throw rateLimited(
      `This workspace already has ${held} uploads in progress, the most at once (UPLOAD_MAX_CONCURRENT); send this one when one of them has finished (retry in ${UPLOAD_SLOT_RETRY_SECONDS} seconds, with the same idempotency_key: nothing was read).`,
      UPLOAD_SLOT_RETRY_SECONDS,
      { Connection: 'close' },
    );
  }
  counts.set(workspaceId, held + 1);
  try {
    return await work();
  } finally {
    const left = (counts.get(workspaceId) ?? 1) - 1;
    if (left > 0) counts.set(workspaceId, left);
    else counts.delete(workspaceId);
  }
}

/** `receive` (an upload's operation) holding one of the caller's workspace's upload slots from the first byte to the answer. */
export function holdingUploadSlot<Q, R>(
  receive: (deps: ServiceDeps, caller: Caller, q: Q, body: AsyncIterable<Buffer>) => Promise<R>,
): (deps: ServiceDeps, caller: Caller, q: Q, body: AsyncIterable<Buffer>) => Promise<R> {
  return (deps, caller, q, body) => withUploadSlot(deps.config, caller.workspaceId, () => receive(deps, caller, q, body));
}

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
  const floor = rateFloor(bounds);
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
          floor.arrived(size);
          onChunk(chunk);
          const handed = performance.now();
          yield chunk;
          floor.held(performance.now() - handed);
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
