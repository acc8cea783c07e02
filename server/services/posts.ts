// Source posts of a pipeline, paginated with signed cursors.
import { notFound } from '../errors.js';
import * as pipelines from '../store/pipelines.js';
import * as store from '../store/posts.js';
import type { Caller, ServiceDeps } from './context.js';
import { decodeTimeCursor, encodeTimeCursor } from './cursor.js';
import { postView } from './views.js';

export const DEFAULT_PAGE_SIZE = 20;

export async function listPosts(deps: ServiceDeps, caller: Caller, q: { pipelineId: string; cursor?: string; limit?: number; hasArtifact?: boolean }) {
  const pipeline = await pipelines.findPipeline(deps.db, caller.workspaceId, q.pipelineId);
  if (!pipeline) throw notFound('pipeline');
  const limit = q.limit ?? DEFAULT_PAGE_SIZE;
  // The scope binds a cursor to this workspace, pipeline and filter.
  const scope = `posts:${caller.workspaceId}:${pipeline.id}:${q.hasArtifact ?? 'all'}`;
  const pos = decodeTimeCursor(deps.cursorKey, scope, q.cursor);
  const after: store.PostPosition | null = pos && { publishedAt: pos.at, id: pos.id };
  const rows = await store.listPosts(deps.db, { pipelineId: pipeline.id, after, limit: limit + 1, hasArtifact: q.hasArtifact });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const next_cursor = rows.length > limit && last ? encodeTimeCursor(deps.cursorKey, scope, last.publishedAt, last.id) : null;
  return { data: page.map(postView), next_cursor };
}
