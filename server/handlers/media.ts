// Uploaded images: the body is the image's raw bytes, streamed to the service.
import * as media from '../services/media.js';
import type { ServiceDeps } from '../services/context.js';
import { callerOf, type Handler } from '../http/typed.js';

export function mediaHandlers(deps: ServiceDeps) {
  const uploadMedia: Handler<'uploadMedia'> = async (req) => {
    const { status, body } = await media.uploadMedia(deps, callerOf(req), req.query, req.bodyStream);
    return status === 201 ? { status, body } : { status, body, headers: { 'Idempotent-Replayed': 'true' } };
  };
  const getMedia: Handler<'getMedia'> = async (req) => ({ status: 200, body: await media.getMedia(deps, callerOf(req), req.path.id) });
  return { uploadMedia, getMedia };
}
