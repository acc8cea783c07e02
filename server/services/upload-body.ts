// The raw body of an upload (an export for POST /imports, an image for POST /media), read chunk by
// chunk under a byte limit: past it, 413 with the connection closed (the rest of the body is not
// read, so the connection cannot carry another request); a body that breaks off is 400 and may be
// sent again with the same idempotency key.
import { AppError, badRequest } from '../errors.js';

/** An error met while receiving an upload, as the caller sees it: ours as they are, anything else a broken upload. */
export const brokenUpload = (err: unknown): AppError =>
  err instanceof AppError ? err : badRequest(`The upload did not arrive whole (${(err as Error).message}); send it again with the same idempotency_key.`);

/** Hands each chunk of `body` to `onChunk`; returns the size read. `tooLarge` is the 413's message. */
export async function readUpload(body: AsyncIterable<Buffer>, limit: number, tooLarge: string, onChunk: (chunk: Buffer) => unknown): Promise<number> {
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > limit) throw badRequest(tooLarge, { status: 413, headers: { Connection: 'close' } });
      await onChunk(chunk);
    }
  } catch (err) {
    throw brokenUpload(err);
  }
  return size;
}
