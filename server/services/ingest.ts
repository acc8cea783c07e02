// Ingest: one run reads a pipeline's posts through its platform adapter, stores them with their
// metrics (re-ingest updates metrics and text, never duplicates: posts are keyed by the
// platform's own id), decodes each post and detects the patterns of the best performers.
// Events, each in the transaction of its change: `post.ready` (a new post), `decode.ready`
// (a new or changed decode), `pattern.detected` (a new pattern, or one seen more or less often),
// then `ingest.completed` with the run's success, or `operator.error` with its failure.
// `operator_id` in these events is the pipeline's id (the pipeline is the operator of a handle).
// A post the adapter reports withdrawn (a Mastodon direct message, stored as a public post by a
// version that did not read audiences) is retired, with a `post.retired` event: see `retireWithdrawn`.
import { adapterFor, type Platform } from '../adapters/index.js';
import { JobError, type JobContext, type JobHandler, type JobHooks } from '../jobs/registry.js';
import { ArchiveError, readExport } from '../adapters/archive/index.js';
import { AppError } from '../errors.js';
import { postsWithDecodes, saveIngestBatch, type BatchPost } from '../store/decodes.js';
import { cancelQueuedRun, setRunProgress } from '../store/runs.js';
import { transaction } from '../store/database.js';
import { narrowArtifactsOf, retirePosts } from '../store/posts.js';
import { unschedule } from '../store/published-parts.js';
import { replacePatterns } from '../store/patterns.js';
import { findPipeline } from '../store/pipelines.js';
import { adapterContext, markAccountDead, requireAccount, type UsableAccount } from './accounts.js';
import { exportToRead } from './imports.js';
import { AdapterError, type FetchedPost } from '../adapters/index.js';
import { decodeText } from './decode.js';
import { recordEvent, recordEvents } from './events.js';
import { detectPatterns } from './patterns.js';
import { upstreamJobError } from './upstream.js';

export interface IngestOutput extends Record<string, unknown> {
  fetched: number;
  created: number;
  updated: number;
  decoded: number;
  patterns: number;
  /** Known posts retired by this run (direct messages), with the artifacts drawn from them. */
  retired?: { post_ids: string[]; artifact_ids: string[]; unscheduled_artifact_ids: string[] };
}

async function loadPipeline(ctx: JobContext) {
  const { run, deps } = ctx;
  const pipeline = run.pipelineId ? await findPipeline(deps.db, run.workspaceId, run.pipelineId) : null;
  if (!pipeline) throw new JobError('not_found', 'The pipeline of this ingest run no longer exists.');
  return pipeline;
}

/** The credential check of from-intent, again at run time (the account may have changed since). */
async function accountFor(ctx: JobContext, platform: Platform, handle: string) {
  try {
    return await requireAccount(ctx.deps, ctx.run.workspaceId, platform, handle);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === 'credential_missing' || e.code === 'credential_dead') throw new JobError(e.code, e.message ?? e.code);
    throw err;
  }
}

export const ingestJob: JobHandler = async (ctx) => {
  const { deps } = ctx;
  const pipeline = await loadPipeline(ctx);
  const platform = pipeline.platform as Platform;
  const adapter = adapterFor(platform);
  const account = await accountFor(ctx, platform, pipeline.handle);
  const handle = account?.account.handle ?? pipeline.handle;
  if (platform === 'archive' && account) return ingestArchive(ctx, pipeline, account);
  let fetched;
  try {
    fetched = await adapter.listPosts(adapterContext(deps, account?.proxyUrl ?? null), handle, account?.creds ?? { secret: '', secondary: null }, {
      max: adapter.ingestLimit,
    });
  } catch (err) {
    if (err instanceof AdapterError && err.kind === 'credential_rejected' && account) await markAccountDead(deps, null, account.account.id, err.message);
    throw upstreamJobError(err, platform);
  }
  const out: IngestOutput = { fetched: 0, created: 0, updated: 0, decoded: 0, patterns: 0 };
  const retired = await retireWithdrawn(ctx, pipeline.id, fetched.withdrawn);
  if (retired) out.retired = retired;
  // Every post the adapter read (a feed: every item of the document), ARCHIVE_BATCH a transaction;
  // a known post is updated, a new one added.
  for (let i = 0; i < fetched.posts.length; i += ARCHIVE_BATCH) {
    if (ctx.signal.aborted) throw new Error('stopping');
    const batch = fetched.posts.slice(i, i + ARCHIVE_BATCH).map((f) => batchPostOf(ctx, pipeline.id, platform, f));
    await saveBatch(ctx, pipeline.id, batch, out);
  }
  out.patterns = await refreshPatterns(ctx, pipeline.id);
  return out;
};

/**
 * Retires the pipeline's known posts with these ids (direct messages an older version stored as
 * public sources), in one transaction: each post keeps only its id (audience `direct`, text,
 * address, media and decode erased), so it is no longer listed nor draftable; every artifact drawn
 * from it gets the audience `direct`, so that publishing it needs `confirm_non_public`; a scheduled
 * one is unscheduled (back to `ready`, its run cancelled with `source_retired`), so that nothing
 * goes out at its time without a new, confirmed publish. Published ones stay published; diagnose
 * reports them (`direct_message_source`). Null when nothing was retired.
 */
async function retireWithdrawn(ctx: JobContext, pipelineId: string, externalIds: string[]): Promise<IngestOutput['retired'] | null> {
  if (!externalIds.length) return null;
  const { deps } = ctx;
  const now = deps.clock.now();
  const retired = await transaction(deps.db, async (tx) => {
    const posts = await retirePosts(tx, { pipelineId, externalIds, now });
    if (!posts.length) return null;
    const artifacts = await narrowArtifactsOf(tx, { pipelineId, postIds: posts.map((p) => p.id), now });
    const unscheduled: string[] = [];
    for (const a of artifacts.filter((x) => x.state === 'scheduled')) {
      const moved = await unschedule(tx, { id: a.id, workspaceId: a.workspaceId, now });
      if (!moved) continue;
      unscheduled.push(a.id);
      if (a.publishRunId) {
        await cancelQueuedRun(tx, {
          id: a.publishRunId,
          now,
          code: 'source_retired',
          message: `The artifact ${a.id} draws on a direct message that ingest retired as a source; it was unscheduled. Publishing it needs confirm_non_public.`,
        });
      }
    }
    const drawnFrom = (p: { id: string }) =>
      artifacts.filter((a) => a.sourcePostId === p.id || (JSON.parse(a.sourcePostIds) as string[]).includes(p.id)).map((a) => a.id);
    await recordEvents(
      tx,
      deps,
      ctx.run.workspaceId,
      posts.map((p) => ({
        type: 'post.retired' as const,
        data: {
          post_id: p.id,
          operator_id: pipelineId,
          reason: 'direct_message',
          artifact_ids: drawnFrom(p),
          unscheduled_artifact_ids: drawnFrom(p).filter((id) => unscheduled.includes(id)),
        },
      })),
    );
    return { post_ids: posts.map((p) => p.id), artifact_ids: artifacts.map((a) => a.id), unscheduled_artifact_ids: unscheduled };
  });
  if (retired) ctx.deps.events.wake();
  return retired;
}

/** Posts written per transaction while an archive or a feed is ingested (21 parameters a post: well under SQLite's 32,766). */
export const ARCHIVE_BATCH = 500;

/** A read post as a row of an ingest batch. */
function batchPostOf(ctx: JobContext, pipelineId: string, platform: Platform, p: FetchedPost & { replyTo?: string | null }): BatchPost {
  return {
    id: ctx.deps.ids.id('post'),
    workspaceId: ctx.run.workspaceId,
    pipelineId,
    platform,
    externalId: p.externalId,
    url: p.url,
    text: p.text,
    publishedAt: p.publishedAt,
    ...p.metrics,
    visibility: p.visibility ?? 'public',
    media: JSON.stringify(p.media ?? []),
    replyTo: p.replyTo ?? null,
    contentWarning: p.contentWarning ?? null,
    poll: p.poll ? JSON.stringify(p.poll) : null,
    firstVersionUrl: p.firstVersionUrl ?? null,
    unreadDate: p.unreadDate ?? null,
  };
}

/** One batch in one transaction with its decodes and events (`post.ready` for new posts, `decode.ready`). */
async function saveBatch(ctx: JobContext, pipelineId: string, batch: BatchPost[], out: IngestOutput): Promise<void> {
  const { deps } = ctx;
  const ws = ctx.run.workspaceId;
  const saved = await saveIngestBatch(
    deps.db,
    { posts: batch, now: deps.clock.now(), decode: decodeText, newDecodeId: () => deps.ids.id('dec') },
    async (tx, s) => {
      const events = [
        ...s.posts.filter((p) => p.created).map((p) => ({ type: 'post.ready' as const, data: { post_id: p.id, operator_id: pipelineId } })),
        ...s.decoded.map((d) => ({ type: 'decode.ready' as const, data: { post_id: d.postId, decode_id: d.decodeId } })),
      ];
      if (events.length) await recordEvents(tx, deps, ws, events);
    },
  );
  out.fetched += batch.length;
  out.created += saved.posts.filter((p) => p.created).length;
  out.updated += saved.posts.filter((p) => !p.created).length;
  out.decoded += saved.decoded.length;
  deps.events.wake();
}

/**
 * An archive: the export is read as a stream (never whole in memory) and written in batches of
 * ARCHIVE_BATCH posts, each batch one transaction with its decodes and events; the run's
 * `progress` counts the posts done of those the import's scan counted.
 */
async function ingestArchive(ctx: JobContext, pipeline: { id: string; handle: string }, account: UsableAccount): Promise<IngestOutput> {
  const { deps, run } = ctx;
  const ws = run.workspaceId;
  let exp;
  try {
    exp = await exportToRead(deps, ws, account.account.handle, account.creds);
  } catch (err) {
    if (err instanceof AppError && err.code === 'validation_failed') throw new JobError('upstream_invalid', err.message);
    throw err;
  }
  const out: IngestOutput = { fetched: 0, created: 0, updated: 0, decoded: 0, patterns: 0 };
  await setRunProgress(deps.db, { id: run.id, done: 0, total: exp.total });
  let batch: BatchPost[] = [];
  const flush = async () => {
    if (!batch.length) return;
    await saveBatch(ctx, pipeline.id, batch, out);
    batch = [];
    await setRunProgress(deps.db, { id: run.id, done: out.fetched, total: Math.max(exp.total, out.fetched) });
  };
  try {
    for await (const p of readExport(exp.source, {
      format: exp.format,
      includeNonPublic: exp.includeNonPublic,
      ownUserId: exp.ownUserId,
      now: deps.clock.now(),
    })) {
      if (ctx.signal.aborted) throw new Error('stopping');
      batch.push(batchPostOf(ctx, pipeline.id, 'archive', p));
      if (batch.length >= ARCHIVE_BATCH) await flush();
    }
    await flush();
  } catch (err) {
    if (err instanceof ArchiveError) throw new JobError('upstream_invalid', err.message);
    throw err;
  }
  out.patterns = await refreshPatterns(ctx, pipeline.id);
  return out;
}

/** Detects the pipeline's patterns over all its posts; returns how many are new or changed. */
async function refreshPatterns(ctx: JobContext, pipelineId: string): Promise<number> {
  const { deps, run } = ctx;
  const rows = await postsWithDecodes(deps.db, pipelineId);
  const detected = detectPatterns(
    rows.map(({ post, decode }) => ({
      id: post.id,
      publishedAt: post.publishedAt,
      likes: post.likes,
      reposts: post.reposts,
      replies: post.replies,
      quotes: post.quotes,
      decode: {
        hook: decode.hook,
        format: decode.format as never,
        length: decode.length,
        hashtags: JSON.parse(decode.hashtags) as string[],
        links: JSON.parse(decode.links) as string[],
      },
    })),
  );
  const changed = await replacePatterns(
    deps.db,
    { workspaceId: run.workspaceId, pipelineId, patterns: detected, newId: () => deps.ids.id('pat'), now: deps.clock.now() },
    (tx, row) => recordEvent(tx, deps, run.workspaceId, 'pattern.detected', { pattern_id: row.id }).then(() => undefined),
  );
  if (changed.length) deps.events.wake();
  return changed.length;
}

export const ingestHooks: JobHooks = {
  async onSucceeded(tx, ctx) {
    if (!ctx.run.pipelineId) return;
    await recordEvent(tx, ctx.deps, ctx.run.workspaceId, 'ingest.completed', { operator_id: ctx.run.pipelineId, run_id: ctx.run.id });
  },
  async onFailed(tx, ctx, failure) {
    if (!ctx.run.pipelineId) return;
    await recordEvent(tx, ctx.deps, ctx.run.workspaceId, 'operator.error', {
      operator_id: ctx.run.pipelineId,
      error: { code: failure.code, message: failure.message },
    });
  },
};
