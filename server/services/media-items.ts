// The items of an artifact's media list, as stored (Artifact.media, JSON) and shown: pure helpers
// shared by drafting (carry), the views (issues) and PUT /artifacts/{id}/media.
import type { components } from '../../generated/api.js';
import type { ArtifactRow } from '../store/artifacts.js';
import type { PostRow } from '../store/posts.js';

type S = components['schemas'];
export type ArtifactMediaItem = S['ArtifactMedia'];

export const mediaOf = (a: Pick<ArtifactRow, 'media'>): ArtifactMediaItem[] => JSON.parse(a.media) as ArtifactMediaItem[];
export const uploadIdsOf = (items: ArtifactMediaItem[]): string[] => items.flatMap((m) => (m.upload_id ? [m.upload_id] : []));

/** The media of the source posts, in the order of the sources and then of each post's attachments. */
export function carriedMedia(posts: Array<Pick<PostRow, 'id' | 'media'>>): ArtifactMediaItem[] {
  return posts.flatMap((p) =>
    (JSON.parse(p.media) as S['MediaRef'][]).map((m, i) => ({
      id: `${p.id}:${i}`,
      upload_id: null,
      source_post_id: p.id,
      type: m.type,
      url: m.url,
      archive_path: m.archive_path,
      alt_text: m.alt_text,
      width: m.width,
      height: m.height,
    })),
  );
}

/** What is wrong with the list, item by item: an image (or GIF, video) without alt text. */
export function mediaIssues(items: ArtifactMediaItem[]): S['ArtifactMediaIssue'][] {
  return items.flatMap((m, index) =>
    m.alt_text || m.type === 'audio' || m.type === 'other'
      ? []
      : [
          {
            media_id: m.id,
            index,
            code: 'missing_alt_text' as const,
            message: `The ${m.type} at position ${index + 1} has no alt text; people who use a screen reader cannot know what it shows. Set alt_text with PUT /artifacts/{id}/media.`,
          },
        ],
  );
}
