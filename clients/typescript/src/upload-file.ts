// A local file to upload (POST /imports, POST /media from a path): opened once, without blocking
// (O_NONBLOCK: opening a FIFO with no writer would wait forever), checked on the open descriptor
// (no race between the check and the read) to be a regular file of a size the service takes, then
// read from that descriptor for exactly the size it had (a file that grows while it is sent does
// not break the declared Content-Length). A directory, a device (/dev/zero, /dev/urandom), a FIFO
// or a socket is refused at once, as is a file past the limit: `UploadArgumentError`, whose message
// names the path and what it is, never the file's content.
import { constants, createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';

/** The service's default bounds (IMPORT_MAX_BYTES, MEDIA_MAX_BYTES); a server configured lower answers 413. */
export const IMPORT_MAX_BYTES = 8 * 1024 ** 3;
export const MEDIA_MAX_BYTES = 32 * 1024 ** 2;

/**
 * An argument of an upload from a path that cannot be used (the path: not a string, missing, not
 * a regular file, too large; or another argument of the wrong type): `argument` names it, and so
 * does the message, which never quotes the file's content.
 */
export class UploadArgumentError extends Error {
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(message);
    this.name = 'UploadArgumentError';
  }
}

export interface UploadFile {
  size: number;
  /** The file's bytes, [0, size), from the descriptor that was checked (closed when it ends or fails); call once. */
  stream(): Readable;
}

function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }) {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Opens `path` for an upload of at most `maxBytes` (`what` names the limit in the message). */
export async function openUploadFile(path: unknown, maxBytes: number, what: string): Promise<UploadFile> {
  if (typeof path !== 'string' || path === '')
    throw new UploadArgumentError('path', `path must be a non-empty string (a file path), got ${path === '' ? 'an empty string' : typeof path}.`);
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? 'cannot be opened');
    throw new UploadArgumentError('path', `path ${JSON.stringify(path)} cannot be read: ${why}.`);
  }
  let size: number;
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new UploadArgumentError('path', `path ${JSON.stringify(path)} is ${kindOf(st)}; only a regular file can be uploaded.`);
    if (st.size > maxBytes)
      throw new UploadArgumentError('path', `path ${JSON.stringify(path)} is ${st.size} bytes; the service takes at most ${maxBytes} (${what}).`);
    size = st.size;
  } catch (err) {
    await fh.close();
    throw err;
  }
  if (size === 0) {
    await fh.close();
    return { size, stream: () => Readable.from([]) };
  }
  const file = fh;
  return {
    size,
    // `end` is inclusive: bytes [0, size) only, whatever is appended meanwhile.
    stream: () => createReadStream('', { fd: file, start: 0, end: size - 1, highWaterMark: 1024 * 1024, autoClose: true }),
  };
}
