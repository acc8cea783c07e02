// Uploaded images (POST /media). The body is read up to MEDIA_MAX_BYTES (413 beyond), sniffed
// (JPEG, PNG, WebP or GIF by its bytes, whatever its name or Content-Type says), its header read
// to refuse decompression bombs before any pixel is decoded, then re-encoded without its metadata
// (EXIF orientation applied; GPS and every other EXIF/XMP/IPTC block gone) and stored as a blob:
// files under the data directory on a desktop, BlobChunk rows on PostgreSQL (every instance of a
// team host reads them). An upload no artifact uses is deleted 24 h after it was made.
import { createHash } from 'node:crypto';
import type { components } from '../../generated/api.js';
import { backendUnavailable, notFound, validationFailed } from '../errors.js';
import { holdingUploadSlot, memorySink, receiveUpload, uploadBounds } from './upload-body.js';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { blobStore, sinkClosed } from '../store/blobs.js';
import * as store from '../store/media.js';
import type { MediaUploadRow } from '../store/media.js';
import type { Caller, ServiceDeps } from './context.js';
import { openArchive } from '../adapters/archive/container.js';
import { OutboundError } from '../outbound/types.js';
import { latestImport } from '../store/imports.js';
import { findPipeline } from '../store/pipelines.js';
import { findPost } from '../store/posts.js';
import { CONTENT_TYPES, ImageError, inspectImage, normalizeImage, type ImageFormat, type ImageInfo } from './images.js';
import type { ArtifactMediaItem } from './media-items.js';

type S = components['schemas'];

/** An upload no artifact uses is deleted this long after it was made. */
export const UNUSED_MEDIA_RETENTION_MS = 24 * 3600 * 1000;
/** Longest alt text kept (the longest any platform we know takes is LinkedIn's 4,086; Mastodon 1,500; X 1,000). */
export const MAX_ALT_TEXT = 5000;

const blobs = (deps: ServiceDeps) => blobStore(deps.db, deps.provider, deps.config.dataDir);

export interface MediaUploadRequest {
  idempotency_key: string;
  alt_text?: string;
}

export function mediaUploadView(row: MediaUploadRow, inUse: boolean): S['MediaUpload'] {
  return {
    id: row.id,
    type: row.frames > 1 || row.contentType === 'image/gif' ? 'gif' : 'image',
    content_type: row.contentType as S['MediaUpload']['content_type'],
    size_bytes: row.sizeBytes,
    width: row.width,
    height: row.height,
    frames: row.frames,
    sha256: row.sha256,
    alt_text: row.altText,
    in_use: inUse,
    expires_at: inUse ? null : new Date(row.createdAt.getTime() + UNUSED_MEDIA_RETENTION_MS).toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}

/** The whole body, refused with 413 past the limit (an image is decoded whole anyway). */
async function readBody(deps: ServiceDeps, body: AsyncIterable<Buffer>): Promise<Buffer> {
  const sink = memorySink();
  await receiveUpload(body, sink, uploadBounds(deps.config, 'media'));
  return sink.bytes();
}

export function cleanAltText(raw: string | null | undefined, field: string): string | null {
  if (raw === undefined || raw === null) return null;
  const text = raw.normalize('NFC').trim();
  if ([...text].length > MAX_ALT_TEXT) throw validationFailed(field, `is ${[...text].length} characters long; alt text may have at most ${MAX_ALT_TEXT}.`);
  return text || null;
}

async function storeBytes(deps: ServiceDeps, bytes: Buffer): Promise<string> {
  const blobId = deps.ids.id('blob');
  const sink = blobs(deps).create(blobId);
  await pipeline(Readable.from([bytes]), sink).catch(async (err: unknown) => {
    await sinkClosed(sink);
    throw err;
  });
  return blobId;
}

/**
 * Accepts an image: 201 with the new upload, or 200 with the first one when the same key comes
 * again with the same bytes and alt text (the key with anything else is 422 `idempotency_key`).
 */
// One of the workspace's upload slots, from the first byte to the answer (429 when none is free).
export const uploadMedia = holdingUploadSlot(receiveMedia);

async function receiveMedia(
  deps: ServiceDeps,
  caller: Caller,
  q: MediaUploadRequest,
  body: AsyncIterable<Buffer>,
): Promise<{ status: 200 | 201; body: S['MediaUpload'] }> {
  const altText = cleanAltText(q.alt_text, 'alt_text');
  const raw = await readBody(deps, body);
  const requestHash = createHash('sha256')
    .update(raw)
    .update(JSON.stringify([altText]))
    .digest('hex');
  const replay = async () => {
    const earlier = await store.findUploadByKey(deps.db, caller.workspaceId, q.idempotency_key);
    if (!earlier) return null;
    if (earlier.requestHash !== requestHash)
      throw validationFailed('idempotency_key', 'was already used for another upload (other bytes or alt_text); use a new key.');
    return { status: 200 as const, body: mediaUploadView(earlier, await store.uploadInUse(deps.db, earlier.id)) };
  };
  const earlier = await replay();
  if (earlier) return earlier;
  if (!raw.length) throw validationFailed('body', 'is empty; send the image bytes as the request body.');
  let bytes: Buffer;
  let info;
  try {
    info = await inspectImage(raw);
    bytes = await normalizeImage(raw, info);
  } catch (err) {
    if (err instanceof ImageError) throw validationFailed('body', err.message);
    throw err;
  }
  const blobId = await storeBytes(deps, bytes);
  const row: MediaUploadRow = {
    id: deps.ids.id('med'),
    workspaceId: caller.workspaceId,
    idempotencyKey: q.idempotency_key,
    requestHash,
    blobId,
    contentType: CONTENT_TYPES[info.format],
    sizeBytes: bytes.length,
    width: info.width,
    height: info.height,
    frames: info.frames,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    altText,
    createdAt: deps.clock.now(),
  };
  try {
    await store.insertUpload(deps.db, row);
  } catch (err) {
    await blobs(deps).remove(blobId);
    // Two uploads with one key at once: the second finds the first's row.
    const again = await replay().catch(() => null);
    if (again) return again;
    throw err;
  }
  return { status: 201, body: mediaUploadView(row, false) };
}

export async function getMedia(deps: ServiceDeps, caller: Caller, id: string): Promise<S['MediaUpload']> {
  const row = await store.findUpload(deps.db, caller.workspaceId, id);
  if (!row) throw notFound('media');
  return mediaUploadView(row, await store.uploadInUse(deps.db, row.id));
}

/** The stored (re-encoded) bytes of an upload, for publishing. */
export async function uploadBytes(deps: ServiceDeps, row: MediaUploadRow): Promise<{ bytes: Buffer; format: ImageFormat }> {
  const parts: Buffer[] = [];
  for await (const chunk of blobs(deps).read(row.blobId, 0, row.sizeBytes)) parts.push(chunk as Buffer);
  const format = (Object.entries(CONTENT_TYPES).find(([, ct]) => ct === row.contentType)?.[0] ?? 'jpeg') as ImageFormat;
  return { bytes: Buffer.concat(parts), format };
}

/** What publishing needs of one item: its bytes, clean (re-encoded without metadata), and what they are. */
export interface MediaBytes {
  bytes: Buffer;
  info: ImageInfo;
}

/** How long the download of an upstream image may take. */
export const MEDIA_DOWNLOAD_TIMEOUT_MS = 30_000;

/**
 * An upstream image through the outbound client (public addresses only, https only, at most
 * MEDIA_MAX_BYTES, 30 s), checked and re-encoded as an upload is (no metadata survives).
 */
export async function downloadImage(deps: ServiceDeps, url: string): Promise<MediaBytes> {
  let res;
  try {
    res = await deps.outbound.request({
      url,
      maxBytes: deps.config.mediaMaxBytes,
      timeoutMs: MEDIA_DOWNLOAD_TIMEOUT_MS,
      headers: { accept: 'image/jpeg, image/png, image/webp, image/gif' },
    });
  } catch (err) {
    if (err instanceof OutboundError) throw backendUnavailable(`The image at ${url} could not be downloaded (${err.message}).`, { status: 502 });
    throw err;
  }
  if (res.status < 200 || res.status > 299)
    throw backendUnavailable(`The image at ${url} answered HTTP ${res.status}.`, { status: 502, upstreamStatus: res.status });
  return cleanImage(res.body, `the image at ${url}`);
}

async function cleanImage(raw: Buffer, what: string): Promise<MediaBytes> {
  try {
    const info = await inspectImage(raw);
    return { bytes: await normalizeImage(raw, info), info };
  } catch (err) {
    if (err instanceof ImageError) throw validationFailed('media', `${what} ${err.message}`);
    throw err;
  }
}

/** An entry of the newest import of the archive the post came from (read up to MEDIA_MAX_BYTES). */
async function archiveImage(deps: ServiceDeps, workspaceId: string, postId: string, entry: string): Promise<MediaBytes | null> {
  const post = await findPost(deps.db, workspaceId, postId);
  const pipeline = post ? await findPipeline(deps.db, workspaceId, post.pipelineId) : null;
  const imp = pipeline ? await latestImport(deps.db, workspaceId, pipeline.handle) : null;
  if (!imp?.blobId) return null;
  const archive = await openArchive({ size: Number(imp.sizeBytes), read: (start, end) => blobs(deps).read(imp.blobId!, start, end) });
  try {
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of archive.open(entry)) {
      size += (chunk as Buffer).length;
      if (size > deps.config.mediaMaxBytes)
        throw validationFailed('media', `${entry} in the archive is larger than ${deps.config.mediaMaxBytes} bytes (MEDIA_MAX_BYTES).`);
      parts.push(chunk as Buffer);
    }
    return await cleanImage(Buffer.concat(parts), `${entry} in the archive`);
  } finally {
    archive.close();
  }
}

/**
 * The bytes of one item of an artifact's media list, for publishing: an upload's stored bytes;
 * an item carried from a source post from the imported archive when it is there, else downloaded
 * from its upstream URL (outbound rules). Null when no bytes can be found (no upload, archive
 * entry or URL).
 */
export async function mediaItemBytes(deps: ServiceDeps, workspaceId: string, item: ArtifactMediaItem): Promise<MediaBytes | null> {
  if (item.upload_id) {
    const row = await store.findUpload(deps.db, workspaceId, item.upload_id);
    if (!row) return null;
    const { bytes, format } = await uploadBytes(deps, row);
    return { bytes, info: { format, width: row.width, height: row.height, frames: row.frames } };
  }
  if (item.archive_path && item.source_post_id) {
    const found = await archiveImage(deps, workspaceId, item.source_post_id, item.archive_path);
    if (found) return found;
  }
  return item.url ? downloadImage(deps, item.url) : null;
}

/**
 * Deletes the uploads no artifact uses, made more than 24 h before now (called hourly and at start
 * by every instance; each deletion re-checks that no artifact took the upload meanwhile). The row
 * goes first, then its bytes: a crash in between leaves unreachable bytes, never a row without them.
 */
export async function sweepUnusedMedia(deps: Pick<ServiceDeps, 'db' | 'clock' | 'provider' | 'config'>): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - UNUSED_MEDIA_RETENTION_MS);
  const b = blobStore(deps.db, deps.provider, deps.config.dataDir);
  let removed = 0;
  for (;;) {
    const batch = await store.unusedUploadsBefore(deps.db, before, 100);
    if (!batch.length) return removed;
    for (const u of batch) {
      if (await store.deleteUnusedUpload(deps.db, u.id)) {
        await b.remove(u.blobId);
        removed += 1;
      }
    }
    if (batch.length < 100) return removed;
  }
}
