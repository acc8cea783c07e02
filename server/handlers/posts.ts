// Source posts.
import * as posts from '../services/posts.js';
import type { ServiceDeps } from '../services/context.js';
import { callerOf, type Handler } from '../http/typed.js';

export function postHandlers(deps: ServiceDeps) {
  const listPipelinePosts: Handler<'listPipelinePosts'> = async (req) => ({
    status: 200,
    body: await posts.listPosts(deps, callerOf(req), {
      pipelineId: req.path.id,
      cursor: req.query.cursor,
      limit: req.query.limit,
      hasArtifact: req.query.has_artifact,
    }),
  });
  return { listPipelinePosts };
}
