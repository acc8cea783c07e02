// The images a publish attaches to its thread: which part carries which (the platform's limit per
// post, 4 on Mastodon and Bluesky, the first part first and the rest on the following parts in
// order), what the publish request refuses before anything is queued (no 409 can come from bytes:
// those need a download, so they are the run's), and a part's upload: its bytes read
// (mediaItemBytes), fitted to the platform (fitForPlatform), uploaded with their alt text, and
// recorded in PublishedPartMedia BEFORE the part is posted, so that a run retried after a crash
// between the upload and the post attaches the same uploads instead of uploading again.
import type { AdapterContext, Credentials, ImageToUpload, PlatformAdapter, UploadedImages } from '../adapters/index.js';
import { AppError, stateConflict, type ErrorExtras } from '../errors.js';
import { JobError, TransientError } from '../jobs/registry.js';
import * as parts from '../store/published-parts.js';
import type { ServiceDeps } from './context.js';
import { CONTENT_TYPES, ImageError } from './images.js';
import type { ArtifactMediaItem } from './media-items.js';
import type { PostingPlatform } from '../platforms/index.js';
import { checkMedia, fitForPlatform, type MediaPlatform } from './media-limits.js';
import { mediaItemBytes } from './media.js';
import { publicImageUrl } from './public-media.js';

/** The items each part carries: `maxItems` per part from the first, in the artifact's order. */
export function mediaByPart(items: ArtifactMediaItem[], platform: PostingPlatform, partCount: number): ArtifactMediaItem[][] {
  const per = platform.media.maxItems;
  const out: ArtifactMediaItem[][] = Array.from({ length: partCount }, () => []);
  items.forEach((m, i) => out[Math.floor(i / per)]?.push(m));
  return out;
}

/** "image 2 (post_…:0)": how an item is named in errors (its 1-based position in the artifact's media and its id). */
const named = (items: ArtifactMediaItem[], id: string | null) => {
  const i = items.findIndex((m) => m.id === id);
  return `media item ${i + 1} (${id})`;
};

/**
 * What the publish request refuses (409, naming the item) before queuing, from what is known
 * without reading any bytes: an item that is not an image, an image without alt text (unless
 * `allowMissingAlt`), alt text longer than the platform takes, more images than the thread has
 * room for. Everything `fitForPlatform` can fix (size, pixels, format) is left to the run.
 */
export function refuseMedia(
  items: ArtifactMediaItem[],
  def: PostingPlatform,
  partCount: number,
  allowMissingAlt: boolean,
  extras: ErrorExtras,
): AppError | null {
  if (!items.length) return null;
  const { name: platform } = def;
  const per = def.media.maxItems;
  const fix = 'Drop or change it with PUT /artifacts/{id}/media.';
  if (items.length > per * partCount) {
    return stateConflict(
      `The artifact has ${items.length} images; ${platform} takes ${per} per post, so its thread of ${partCount} part${partCount === 1 ? '' : 's'} has room for ${per * partCount} (the first ${per} go with part 1, the next with part 2, …). Drop images with PUT /artifacts/{id}/media, or split the text into more parts.`,
      extras,
    );
  }
  const facts = items.map((m) => ({
    id: m.id,
    type: m.type,
    format: null,
    sizeBytes: null,
    width: m.width,
    height: m.height,
    frames: null,
    altText: m.alt_text,
  }));
  for (const p of checkMedia(facts, platform)) {
    if (p.code === 'too_many_items' || p.fixable) continue;
    if (p.code === 'missing_alt_text') {
      if (allowMissingAlt) continue;
      return stateConflict(
        `The image ${named(items, p.mediaId)} has no alt text; people who use a screen reader cannot know what it shows. Set its alt_text with PUT /artifacts/{id}/media, or send allow_missing_alt_text: true to publish it without.`,
        { ...extras, suggestedAction: 'set_alt_text' },
      );
    }
    if (p.severity === 'error') return stateConflict(`${platform} cannot take ${named(items, p.mediaId)}: ${p.message} ${fix}`, extras);
  }
  return null;
}

/** What to do about an item the run cannot use: the media of a publishing artifact no longer change. */
const REDRAFT =
  'To publish without it, re-draft the artifact (POST /posts/{id}/draft with parent_artifact_id) and drop it from the new version with PUT /artifacts/{id}/media.';

/** One item's bytes, fitted to the platform; a failure names the item (a retryable one stays retryable). */
async function imageFor(
  deps: ServiceDeps,
  workspaceId: string,
  artifactId: string,
  platform: MediaPlatform,
  items: ArtifactMediaItem[],
  item: ArtifactMediaItem,
): Promise<ImageToUpload> {
  const name = named(items, item.id);
  let found;
  try {
    found = await mediaItemBytes(deps, workspaceId, item);
  } catch (err) {
    if (err instanceof AppError && err.retryable)
      throw new TransientError(`The bytes of ${name} could not be read: ${err.message}`, 'media_unavailable', err.extras.upstreamStatus ?? null);
    if (err instanceof AppError) throw new JobError('media_unavailable', `The bytes of ${name} could not be read: ${err.message}`);
    throw err;
  }
  if (!found)
    throw new JobError(
      'media_unavailable',
      `The bytes of ${name} are nowhere to be read (its upload is gone, or it has neither an archive entry nor an address). ${REDRAFT}`,
    );
  try {
    const fitted = await fitForPlatform(found.bytes, platform);
    return {
      bytes: fitted.bytes,
      contentType: CONTENT_TYPES[fitted.format],
      altText: item.alt_text,
      width: fitted.width,
      height: fitted.height,
      publicUrl: item.id ? publicImageUrl(deps, { workspaceId, artifactId, mediaId: item.id, platform }) : null,
    };
  } catch (err) {
    if (err instanceof ImageError) throw new JobError('media_unfit', `${name} cannot be made to fit ${platform}: it ${err.message}. ${REDRAFT}`);
    throw err;
  }
}

/** What `uploaded` holds: the artifact media ids the upload shows, and what the post must carry. */
interface RecordedUpload {
  media_ids: string[];
  uploaded: UploadedImages;
}

/**
 * The images of part `position`, uploaded: the record of an earlier attempt when there is one
 * (nothing is uploaded again), else read, fitted, uploaded and recorded before returning — the
 * caller posts only after that. Null when the part carries no image or the adapter uploads none.
 */
export async function uploadPartImages(
  deps: ServiceDeps,
  q: {
    adapter: PlatformAdapter;
    ctx: AdapterContext;
    handle: string;
    creds: Credentials;
    platform: PostingPlatform;
    workspaceId: string;
    artifactId: string;
    /** The destination (account id) the part goes to: each destination uploads its own. */
    destination: string;
    position: number;
    items: ArtifactMediaItem[];
    all: ArtifactMediaItem[];
  },
): Promise<UploadedImages | null> {
  if (!q.items.length || !q.adapter.uploadImages) return null;
  const recorded = await parts.findPartMedia(deps.db, q.artifactId, q.destination, q.position);
  if (recorded) return (JSON.parse(recorded.uploaded) as RecordedUpload).uploaded;
  const images: ImageToUpload[] = [];
  for (const item of q.items) images.push(await imageFor(deps, q.workspaceId, q.artifactId, q.platform.name, q.all, item));
  const uploaded = await q.adapter.uploadImages(q.ctx, q.handle, q.creds, images);
  const row: RecordedUpload = { media_ids: q.items.map((m) => m.id), uploaded };
  await parts.recordPartMedia(deps.db, {
    artifactId: q.artifactId,
    destination: q.destination,
    position: q.position,
    uploaded: JSON.stringify(row),
    uploadedAt: deps.clock.now(),
  });
  return uploaded;
}
