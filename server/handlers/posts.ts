// Source posts (the `Posts` tag).
import * as posts from '../services/posts.js';
import type { ServiceDeps } from '../services/context.js';
import type { HandlersOf } from '../http/typed.js';

export function postHandlers(deps: ServiceDeps) {
  return {
    listPipelinePosts: async (req) => ({
      status: 200,
      body: await posts.listPosts(deps, req.caller, {
        pipelineId: req.path.id,
        cursor: req.query.cursor,
        limit: req.query.limit,
        hasArtifact: req.query.has_artifact,
      }),
    }),
  } satisfies HandlersOf<'Posts'>;
}
