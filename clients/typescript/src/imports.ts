// Uploading a data export from a file: streamed from disk (never read whole), with the bytes sent
// reported as they go, so that a command line can show an upload bar for a file of gigabytes.
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { IMPORT_MAX_BYTES, openUploadFile } from './upload-file.js';
import type { ApiClient, Schemas } from './client.js';
import { unwrap } from './client.js';

export interface UploadImportOptions {
  /** The export as downloaded: X, LinkedIn, Instagram, Threads, Medium or Substack ZIP, Mastodon ZIP or tar.gz, Bluesky .car, WordPress .xml, Misskey notes or Pixelfed statuses .json, or the bare file. */
  path: string;
  /** The archive account's name; create a pipeline with this handle to ingest it. */
  handle: string;
  format?: Schemas['Import']['format'];
  includeNonPublic?: boolean;
  /** Reuse it to retry an upload safely (default: the client generates one). */
  idempotencyKey?: string;
  /** Called as bytes leave: (sent, total). */
  onProgress?: (sent: number, total: number) => void;
}

const TYPES: Array<[RegExp, string]> = [
  [/\.zip$/i, 'application/zip'],
  [/\.(tar\.gz|tgz|gz)$/i, 'application/gzip'],
  [/\.tar$/i, 'application/x-tar'],
  [/\.json$/i, 'application/json'],
  [/\.csv$/i, 'text/csv'],
  [/\.js$/i, 'text/javascript'],
  [/\.car$/i, 'application/vnd.ipld.car'],
  [/\.xml$/i, 'application/xml'],
];

/** The media type an export's file name suggests (the server reads the content, not the name). */
export const importContentType = (path: string) => TYPES.find(([re]) => re.test(path))?.[1] ?? 'application/octet-stream';

/** POST /imports with the file as the body. Resolves to the import (201, or 200 for a replay). */
export async function uploadImport(client: ApiClient, o: UploadImportOptions): Promise<Schemas['Import']> {
  const file = await openUploadFile(o.path, IMPORT_MAX_BYTES, 'IMPORT_MAX_BYTES, 8 GiB by default');
  const total = file.size;
  let sent = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      sent += chunk.length;
      o.onProgress?.(sent, total);
      cb(null, chunk);
    },
  });
  // pipeline, not pipe: a read error reaches the request body (and the caller) instead of being an unhandled 'error'.
  pipeline(file.stream(), counted).catch(() => undefined);
  const query = {
    handle: o.handle,
    ...(o.idempotencyKey ? { idempotency_key: o.idempotencyKey } : {}),
    ...(o.format ? { format: o.format } : {}),
    ...(o.includeNonPublic ? { include_non_public: true } : {}),
  };
  return unwrap(
    client.POST('/api/agent/v1/imports', {
      params: { query },
      body: Readable.toWeb(counted) as never,
      bodySerializer: (b: unknown) => b as BodyInit,
      headers: { 'Content-Type': importContentType(o.path), 'Content-Length': String(total) },
      duplex: 'half',
    } as never),
  );
}
