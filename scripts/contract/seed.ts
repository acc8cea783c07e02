// Seeds the contract-fuzzing server's workspace (scripts/contract-test.mjs) with the resources the
// contract's examples name, written through the store as ingest and drafting would write them:
// the pipeline of the from-intent example (pl_8c1e2f0a9b7d4c3e, '@ada@mastodon.example'), its
// ingest run (run_5e1a7c3b9d2f4e6a), the posts of the draft and brief examples, and the artifact
// the artifact examples name (art_4c3e8c1e2f0a9b7d, in review), and the session of the session
// examples (ses_weekly_review) with its tracked source (src_0a9b7d4c3e8c) and its variant
// (itm_9a550b8e4f5e4c27). Without them every example that names a resource is a 404, and the
// fuzzing never reaches the operations' success paths.
// Usage: node --import tsx scripts/contract/seed.ts <data dir>
import { openDatabase } from '../../server/store/database.js';
import { insertArtifact } from '../../server/store/artifacts.js';
import { upsertPipelineWithRun } from '../../server/store/pipelines.js';
import { upsertPost } from '../../server/store/posts.js';
import { insertRun } from '../../server/store/runs.js';
import { addedSummary } from '../../server/services/sessions.js';
import { addItem } from '../../server/store/sessions.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: seed.ts <data dir>');

const PIPELINE = 'pl_8c1e2f0a9b7d4c3e';
const RUN = 'run_5e1a7c3b9d2f4e6a';
const POSTS = ['post_2b7d4c3e8c1e2f0a', 'post_8c1e2f0a2b7d4c3e', 'post_0a2b7d4c3e8c1e2f'];
const ARTIFACT = 'art_4c3e8c1e2f0a9b7d';
const SESSION = 'ses_weekly_review';

const { db, close } = await openDatabase({ dataDir, databaseUrl: null });
try {
  const workspace = await db.selectFrom('Workspace').selectAll().orderBy('createdAt', 'asc').limit(1).executeTakeFirstOrThrow();
  const workspaceId = workspace.id;
  const now = new Date();
  await upsertPipelineWithRun(
    db,
    {
      pipelineId: PIPELINE,
      workspaceId,
      handle: '@ada@mastodon.example',
      intent: 'Weekly LinkedIn posts about our open-source releases',
      tone: 'plain and technical',
      platform: 'mastodon',
      now,
    },
    // The ingest that brought the posts in, finished.
    async (tx) => {
      await insertRun(tx, { id: RUN, workspaceId, pipelineId: PIPELINE, kind: 'ingest', input: {}, now });
      await tx
        .updateTable('Run')
        .set({
          status: 'succeeded',
          attempts: 1,
          startedAt: now,
          finishedAt: now,
          output: JSON.stringify({ fetched: POSTS.length, created: POSTS.length, updated: 0, decoded: 0, patterns: 0 }),
        })
        .where('id', '=', RUN)
        .execute();
    },
  );
  for (const [i, id] of POSTS.entries()) {
    await upsertPost(db, {
      id,
      workspaceId,
      pipelineId: PIPELINE,
      platform: 'mastodon',
      externalId: `10934${i}`,
      url: `https://mastodon.example/@ada/10934${i}`,
      text: `Release ${i + 1}.0 is out: faster sync, fewer surprises. Notes on the blog. #release`,
      publishedAt: new Date(Date.UTC(2026, 10, 1 + i, 9)),
      likes: 40 - i * 10,
      reposts: 6 - i,
      replies: 3,
      quotes: 0,
    });
  }
  await db.transaction().execute((tx) =>
    insertArtifact(tx, {
      id: ARTIFACT,
      workspaceId,
      pipelineId: PIPELINE,
      sourcePostId: POSTS[0]!,
      parentArtifactId: null,
      rootArtifactId: ARTIFACT,
      generation: 0,
      ancestors: [],
      text: 'We shipped 1.0 this week: faster sync and fewer surprises. What changed, and why, in the notes.',
      state: 'review',
      sourceVisibility: 'public',
      now,
    }),
  );
  const items = [
    { id: 'itm_5e4c279a550b8e4f', kind: 'source' as const, url: 'https://blog.example.org/releases/v2-3', artifactId: null, newSourceId: 'src_0a9b7d4c3e8c' },
    { id: 'itm_9a550b8e4f5e4c27', kind: 'artifact' as const, url: null, artifactId: ARTIFACT, newSourceId: null },
  ];
  for (const it of items) {
    const summary = addedSummary({ kind: it.kind, url: it.url ?? undefined, artifact_id: it.artifactId ?? undefined });
    await addItem(
      db,
      { id: it.id, workspaceId, sessionId: SESSION, kind: it.kind, text: null, url: it.url, artifactId: it.artifactId, newSourceId: it.newSourceId, now },
      () => ({
        id: `act_${it.id.slice(4)}`,
        workspaceId,
        sessionId: SESSION,
        kind: 'item_added',
        summary,
        now,
      }),
    );
  }
  console.error(`[contract] seeded ${PIPELINE} with ${POSTS.length} posts, ${ARTIFACT}, ${RUN}, and ${SESSION} with a source and a variant`);
} finally {
  await close();
}
