// Uploaded images (the `Media` tag): the body is the image's raw bytes, streamed to the service.
import * as media from '../services/media.js';
import * as publicMedia from '../services/public-media.js';
import type { ServiceDeps } from '../services/context.js';
import { uploadReply, type HandlersOf } from '../http/typed.js';

export function mediaHandlers(deps: ServiceDeps) {
  return {
    uploadMedia: async (req) => uploadReply(await media.uploadMedia(deps, req.caller, req.query, req.bodyStream)),
    getMedia: async (req) => ({ status: 200, body: await media.getMedia(deps, req.caller, req.path.id) }),
    getPublicMedia: async (req) => ({ status: 200, body: await publicMedia.publicImage(deps, req.path.token) }),
  } satisfies HandlersOf<'Media'>;
}
