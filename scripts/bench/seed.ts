// What the benchmark scenarios read, seeded through the store: a pipeline, `posts` source posts,
// one artifact in review (scripts/bench/server.ts, scripts/bench/statements.ts); and, for the
// list pages (scenario 8), a second pipeline with `listed` more artifacts like it; for the inbox
// (scenario 10), a third pipeline with `inboxDrafts` drafts in review.
import { enqueueRun } from '../../server/jobs/enqueue.js';
import type { ServiceDeps } from '../../server/services/context.js';
import { upsertPipelineWithRun } from '../../server/store/pipelines.js';
import { seedArtifact, seedPosts, workspaceOf } from '../../test/support/seed.js';

export async function seedBench(deps: ServiceDeps, token: string, posts = 300, listed = 200, inboxDrafts = 1000) {
  const workspaceId = await workspaceOf(deps, token);
  const { pipeline } = await upsertPipelineWithRun(
    deps.db,
    { pipelineId: deps.ids.id('pl'), workspaceId, handle: 'bench-archive', intent: 'Benchmark', tone: null, platform: 'archive', now: deps.clock.now() },
    (tx, p) => enqueueRun(tx, deps, { workspaceId, pipelineId: p.id, kind: 'ingest', input: {} }),
  );
  const postIds = await seedPosts(deps, { workspaceId, pipelineId: pipeline.id, count: posts });
  const artifact = await seedArtifact(deps, {
    workspaceId,
    pipelineId: pipeline.id,
    postId: postIds[0]!,
    state: 'review',
    text: 'A benchmark draft. '.repeat(20),
  });
  // Apart from the first pipeline, so that GET /pipelines/{id} (scenario 7) counts what it always did.
  const { pipeline: lists } = await upsertPipelineWithRun(
    deps.db,
    { pipelineId: deps.ids.id('pl'), workspaceId, handle: 'bench-archive', intent: 'Benchmark lists', tone: null, platform: 'archive', now: deps.clock.now() },
    async () => null,
  );
  for (let i = 0; i < listed; i++) {
    await seedArtifact(deps, {
      workspaceId,
      pipelineId: lists.id,
      postId: postIds[i % postIds.length]!,
      state: 'review',
      text: 'A benchmark draft. '.repeat(20),
    });
  }
  const { pipeline: inbox } = await upsertPipelineWithRun(
    deps.db,
    { pipelineId: deps.ids.id('pl'), workspaceId, handle: 'bench-archive', intent: 'Benchmark inbox', tone: null, platform: 'archive', now: deps.clock.now() },
    async () => null,
  );
  const inboxPosts = await seedPosts(deps, { workspaceId, pipelineId: inbox.id, count: 1 });
  for (let i = 0; i < inboxDrafts; i++) {
    await seedArtifact(deps, {
      workspaceId,
      pipelineId: inbox.id,
      postId: inboxPosts[0]!,
      state: 'review',
      text: `Draft ${i} waiting for review. `.repeat(10),
    });
  }
  return { workspaceId, pipelineId: pipeline.id, postIds, artifactId: artifact.id, inboxPipelineId: inbox.id };
}
