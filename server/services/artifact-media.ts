// The media of an artifact: an ordered list of images (and other attachments) with their alt
// text. A new draft carries its source posts' media, in order; a re-draft (or a variant's next
// round) carries its parent's. The agent replaces the list with PUT /artifacts/{id}/media: drop,
// reorder, add an upload, set alt text. A missing alt text is flagged on the artifact, in
// diagnose and in the inbox.
import type { components } from '../../generated/api.js';
import { API_PREFIX, notFound, stateConflict, validationFailed } from '../errors.js';
import { findArtifact } from '../store/artifacts.js';
import { transaction } from '../store/database.js';
import { findUploads, setArtifactMedia as storeMedia } from '../store/media.js';
import type { Caller, ServiceDeps } from './context.js';
import { cleanAltText } from './media.js';
import { mediaOf, uploadIdsOf, type ArtifactMediaItem } from './media-items.js';
import { viewOf } from './artifacts.js';
import { afterEdit } from './approval.js';

type S = components['schemas'];

/** States whose media can change: once published or discarded, an artifact is final. */
const EDITABLE = ['draft', 'review', 'ready'];

export interface MediaListRequest {
  media: Array<{ id: string; alt_text?: string | null }>;
}

/**
 * PUT /artifacts/{id}/media: the list becomes exactly `media`, in its order. Each entry names an
 * item the artifact already has (its `id`) or an upload of the workspace (`med_…`); `alt_text`
 * sets the alt text (`null` or blank removes it), its absence keeps the item's (an upload's own).
 */
export async function replaceArtifactMedia(deps: ServiceDeps, caller: Caller, id: string, body: MediaListRequest): Promise<S['Artifact']> {
  const seen = new Set<string>();
  body.media.forEach((m, i) => {
    if (seen.has(m.id)) throw validationFailed(`body.media[${i}].id`, `repeats ${m.id}; each item may appear once.`);
    seen.add(m.id);
  });
  const alts = body.media.map((m, i) => (m.alt_text === undefined ? undefined : cleanAltText(m.alt_text, `body.media[${i}].alt_text`)));
  return transaction(deps.db, async (tx) => {
    const a = await findArtifact(tx, caller.workspaceId, id);
    if (!a) throw notFound('artifact');
    if (!EDITABLE.includes(a.state)) {
      throw stateConflict(
        `The artifact is ${a.state}; its media can no longer change. Re-draft it (parent_artifact_id) to start a new version with these media.`,
        {
          suggestedAction: 'fetch_artifact',
          suggestedEndpoint: `GET ${API_PREFIX}/artifacts/${id}`,
        },
      );
    }
    const current = new Map(mediaOf(a).map((m) => [m.id, m]));
    const uploads = new Map(
      (
        await findUploads(
          tx,
          caller.workspaceId,
          body.media.map((m) => m.id).filter((x) => !current.has(x)),
        )
      ).map((u) => [u.id, u]),
    );
    const items = body.media.map((m, i): ArtifactMediaItem => {
      const known = current.get(m.id);
      const upload = uploads.get(m.id);
      let item: ArtifactMediaItem;
      if (known) item = known;
      else if (upload) {
        item = {
          id: upload.id,
          upload_id: upload.id,
          source_post_id: null,
          type: upload.frames > 1 || upload.contentType === 'image/gif' ? 'gif' : 'image',
          url: null,
          archive_path: null,
          alt_text: upload.altText,
          width: upload.width,
          height: upload.height,
        };
      } else
        throw validationFailed(
          `body.media[${i}].id`,
          `names neither an item of this artifact nor an upload of your workspace (${m.id}); upload images with POST /media.`,
        );
      return alts[i] === undefined ? item : { ...item, alt_text: alts[i] ?? null };
    });
    const json = JSON.stringify(items);
    await storeMedia(tx, a, json, uploadIdsOf(items), deps.clock.now());
    // A change by a caller who cannot approve withdraws the approval (the approval gate).
    if (json !== a.media) await afterEdit(tx, deps, caller, id);
    return viewOf({ db: tx }, (await findArtifact(tx, caller.workspaceId, id))!);
  });
}
