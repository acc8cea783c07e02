// Uploading an image from a file (POST /media): the server judges the format from the bytes;
// the Content-Type sent is the one the file's name suggests.
import { Readable } from 'node:stream';
import { MEDIA_MAX_BYTES, openUploadFile } from './upload-file.js';
import type { ApiClient, Schemas } from './client.js';
import { unwrap } from './client.js';

export interface UploadMediaOptions {
  /** A JPEG, PNG, WebP or GIF file. */
  path: string;
  /** The image's description for people who cannot see it. */
  altText?: string;
  /** Reuse it to retry an upload safely (default: a new key from the client's middleware). */
  idempotencyKey?: string;
}

const TYPES: Array<[RegExp, string]> = [
  [/\.jpe?g$/i, 'image/jpeg'],
  [/\.png$/i, 'image/png'],
  [/\.webp$/i, 'image/webp'],
  [/\.gif$/i, 'image/gif'],
];

/** The media type an image file's name suggests (the server reads the content, not the name). */
export const mediaContentType = (path: string) => TYPES.find(([re]) => re.test(path))?.[1] ?? 'application/octet-stream';

/** POST /media with the file as the body. Resolves to the upload (201, or 200 for a replay). */
export async function uploadMedia(client: ApiClient, o: UploadMediaOptions): Promise<Schemas['MediaUpload']> {
  const file = await openUploadFile(o.path, MEDIA_MAX_BYTES, 'MEDIA_MAX_BYTES, 32 MiB by default');
  // the client's idempotency middleware fills in a key when none is given, as for every keyed call
  const query = { ...(o.idempotencyKey ? { idempotency_key: o.idempotencyKey } : {}), ...(o.altText !== undefined ? { alt_text: o.altText } : {}) };
  return unwrap(
    client.POST('/api/agent/v1/media', {
      params: { query },
      body: Readable.toWeb(file.stream()) as never,
      bodySerializer: (b: unknown) => b as BodyInit,
      headers: { 'Content-Type': mediaContentType(o.path), 'Content-Length': String(file.size) },
      duplex: 'half',
    } as never),
  );
}
