// Uploaded images (the `Media` tag): the body is the image's raw bytes, streamed to the service.
import * as media from '../services/media.js';
import type { ServiceDeps } from '../services/context.js';
import type { HandlersOf } from '../http/typed.js';

export function mediaHandlers(deps: ServiceDeps) {
  return {
    uploadMedia: async (req) => {
      const { status, body } = await media.uploadMedia(deps, req.caller, req.query, req.bodyStream);
      return status === 201 ? { status, body } : { status, body, headers: { 'Idempotent-Replayed': 'true' } };
    },
    getMedia: async (req) => ({ status: 200, body: await media.getMedia(deps, req.caller, req.path.id) }),
  } satisfies HandlersOf<'Media'>;
}
