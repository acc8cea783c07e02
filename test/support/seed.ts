// Seeds rows straight through the store, for tests of reads and state rules.
import { authenticate } from '../../server/services/tokens.js';
import type { ServiceDeps } from '../../server/services/context.js';
import { upsertPost } from '../../server/store/posts.js';
import { createArtifact } from '../../server/store/artifacts.js';

export async function workspaceOf(deps: ServiceDeps, token: string): Promise<string> {
  const r = await authenticate(deps, token);
  if (!r.ok) throw new Error('token not valid');
  return r.caller.workspaceId;
}

export async function seedPosts(deps: ServiceDeps, q: { workspaceId: string; pipelineId: string; count: number; start?: Date; platform?: string }) {
  const start = q.start ?? new Date('2026-11-01T00:00:00.000Z');
  const ids: string[] = [];
  for (let i = 0; i < q.count; i++) {
    const { post } = await upsertPost(deps.db, {
      id: deps.ids.id('post'),
      workspaceId: q.workspaceId,
      pipelineId: q.pipelineId,
      platform: q.platform ?? 'mastodon',
      externalId: `ext-${i}`,
      url: `https://mastodon.example/@ada/${1000 + i}`,
      text: `Post number ${i}: shipping notes #release`,
      // every third post shares a timestamp with the one before, to exercise the id tie-break
      publishedAt: new Date(start.getTime() + Math.floor(i - (i % 3 === 2 ? 1 : 0)) * 60_000),
      likes: i * 10,
      reposts: i,
      replies: i % 4,
      quotes: 0,
    });
    ids.push(post.id);
  }
  return ids;
}

export async function seedArtifact(
  deps: ServiceDeps,
  q: { workspaceId: string; pipelineId: string; postId: string; state: string; text?: string; sourceVisibility?: string; contentWarning?: string | null },
) {
  const id = deps.ids.id('art');
  return createArtifact(deps.db, {
    id,
    workspaceId: q.workspaceId,
    pipelineId: q.pipelineId,
    sourcePostId: q.postId,
    parentArtifactId: null,
    rootArtifactId: id,
    generation: 0,
    ancestors: [],
    text: q.text ?? 'A draft.',
    state: q.state,
    sourceVisibility: q.sourceVisibility ?? 'public',
    contentWarning: q.contentWarning ?? null,
    now: deps.clock.now(),
  });
}

/** A pipeline inserted as a row (a feed or archive one: created through the API it would queue an ingest that reaches out), with one post. */
export async function seedPipelineWithPost(deps: ServiceDeps, q: { workspaceId: string; platform: 'rss' | 'archive'; intent: string }) {
  const id = deps.ids.id('pl');
  const now = new Date();
  await deps.db
    .insertInto('Pipeline')
    .values({
      id,
      workspaceId: q.workspaceId,
      handle: `${q.platform}-${id}`,
      intent: q.intent,
      tone: null,
      platform: q.platform,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  const [postId] = await seedPosts(deps, { workspaceId: q.workspaceId, pipelineId: id, count: 1 });
  return { pipelineId: id, postId: postId! };
}
