// The `publish` run: posts an artifact's parts upstream, in order, each as a reply to the one
// before, each exactly once. A part is recorded in PublishedPart as soon as the platform has it,
// so a run that is retried (a transient failure, a restart, a kill -9, another instance taking
// over an expired lease) or a later publish after a failure continues from the first missing
// part; each part also carries a key fixed for it upstream (Mastodon's Idempotency-Key, a fixed
// Bluesky record key), which covers a crash between the post and its record.
import { adapterFor, AdapterError, type Platform, type Published } from '../adapters/index.js';
import { JobError, TransientError, type JobContext, type JobHooks, type RunFailure } from '../jobs/registry.js';
import type { Db } from '../store/database.js';
import { findPipeline } from '../store/pipelines.js';
import { RETIRED } from '../store/posts.js';
import * as parts from '../store/published-parts.js';
import type { PublishedPartRow } from '../store/published-parts.js';
import { setRunProgress } from '../store/runs.js';
import { adapterContext, markAccountDead, requireAccount } from './accounts.js';
import { recordEvent } from './events.js';
import { mediaOf } from './media-items.js';
import { mediaByPart, uploadPartImages } from './publish-media.js';
import { publishableParts } from './variants.js';
import { upstreamJobError } from './upstream.js';

function artifactIdOf(ctx: JobContext): string {
  const id = ctx.input.artifact_id;
  if (typeof id !== 'string') throw new JobError('invalid_input', 'The publish run has no artifact_id in its input.');
  return id;
}

/** "Parts 1 and 2 of 4 are live (url, url)": what a failure leaves behind, for the run's error. */
export function liveSummary(done: Array<Pick<PublishedPartRow, 'url' | 'externalId'> | undefined>, total: number): string {
  const live = done.filter((p): p is PublishedPartRow => p !== undefined);
  if (!live.length) return `None of the ${total} part${total === 1 ? ' is' : 's are'} live.`;
  const urls = live.map((p) => p.url ?? p.externalId).join(', ');
  return `${live.length} of ${total} part${total === 1 ? ' is' : 's are'} live (${urls}); publishing again continues from part ${live.length + 1}.`;
}

const asPublished = (p: PublishedPartRow): Published => ({ externalId: p.externalId, url: p.url, cid: p.cid });

/** The run's error, with what is already live appended to its message (the worker keeps its kind). */
function withSummary(err: unknown, summary: string): unknown {
  if (err instanceof TransientError) return new TransientError(`${err.message}. ${summary}`, err.code, err.upstreamStatus);
  if (err instanceof JobError) return new JobError(err.code, `${err.message}. ${summary}`, err.upstreamStatus);
  return err;
}

export async function publishJob(ctx: JobContext): Promise<Record<string, unknown>> {
  const { deps, run } = ctx;
  const id = artifactIdOf(ctx);
  // Only the run the artifact names publishes it: an unschedule or a reschedule meanwhile took it away.
  const a = await parts.startPublishing(deps.db, { id, runId: run.id, now: deps.clock.now() });
  if (!a) return { artifact_id: id, skipped: "The artifact is no longer this run's to publish (unscheduled, rescheduled or gone)." };
  // Retired as a source after this run was queued (a direct message): it goes out only if the request confirmed.
  if (a.sourceVisibility === RETIRED && ctx.input.confirm_non_public !== true) {
    throw new JobError(
      'forbidden',
      `The artifact ${id} draws on a direct message that ingest retired as a source; publish it again with confirm_non_public: true to make that text public.`,
    );
  }
  const pipeline = await findPipeline(deps.db, a.workspaceId, a.pipelineId);
  if (!pipeline) throw new JobError('not_found', 'The pipeline of this artifact no longer exists.');
  const platform = pipeline.platform as Platform;
  const adapter = adapterFor(platform);
  if (!adapter.publish) return { artifact_id: id, parts: 0, published_url: null, published_urls: [] };
  // A missing or dead account fails the run (424 credential_missing / credential_dead as its code).
  const account = await requireAccount(deps, a.workspaceId, platform, pipeline.handle);
  if (!account) throw new JobError('credential_missing', `${platform} can publish but has no account.`);
  const texts = await publishableParts(deps, a, platform);
  // The images each part carries (the first part first, 4 per part); checked by the request.
  const media = mediaOf(a).filter((m) => m.type === 'image' || m.type === 'gif');
  const imagesOf = mediaByPart(media, platform as 'mastodon' | 'bluesky', texts.length);
  // One context for the run: the adapter verifies the account (or opens its session) once.
  const memo = new Map<string, Promise<unknown>>();
  const actx = () => ({ ...adapterContext(deps, account.proxyUrl), memo });
  const done: Array<PublishedPartRow | undefined> = [];
  for (const p of await parts.listParts(deps.db, id)) done[p.position] = p;
  for (let i = 0; i < texts.length; i++) {
    if (done[i]) continue;
    const root = done[0];
    const parent = done[i - 1];
    if (i > 0 && (!root || !parent)) throw new JobError('internal_error', `Part ${i + 1} has no recorded part before it.`);
    let posted: Published;
    try {
      // Uploaded and recorded before the post; a retry finds the record and uploads nothing again.
      const uploaded = await uploadPartImages(deps, {
        adapter,
        ctx: actx(),
        handle: account.account.handle,
        creds: account.creds,
        platform: platform as 'mastodon' | 'bluesky',
        workspaceId: a.workspaceId,
        artifactId: id,
        position: i,
        items: imagesOf[i] ?? [],
        all: media,
      });
      posted = await adapter.publish(actx(), account.account.handle, account.creds, {
        text: texts[i],
        media: uploaded,
        key: { id, createdAt: a.createdAt, position: i },
        contentWarning: i === 0 ? a.contentWarning : null,
        replyTo: i > 0 ? { root: asPublished(root!), parent: asPublished(parent!) } : null,
      });
    } catch (err) {
      if (err instanceof AdapterError && err.kind === 'credential_rejected') await markAccountDead(deps, null, account.account.id, err.message);
      const summary = `Part ${i + 1} of ${texts.length} failed. ${liveSummary(done, texts.length)}`;
      throw withSummary(upstreamJobError(err, platform), summary);
    }
    const row: PublishedPartRow = { artifactId: id, position: i, externalId: posted.externalId, cid: posted.cid, url: posted.url, postedAt: deps.clock.now() };
    await parts.recordPart(deps.db, row);
    done[i] = row;
    if (texts.length > 1) await setRunProgress(deps.db, { id: run.id, done: i + 1, total: texts.length });
  }
  const urls = done.slice(0, texts.length).map((p) => p?.url ?? null);
  return { artifact_id: id, parts: texts.length, published_url: urls[0] ?? null, published_urls: urls };
}

async function partUrls(db: Db, artifactId: string): Promise<Array<string | null>> {
  return (await parts.listParts(db, artifactId)).map((p) => p.url ?? p.externalId);
}

export const publishHooks: JobHooks = {
  async onSucceeded(tx, ctx, output) {
    if (!output || output.skipped) return;
    const { deps, run } = ctx;
    const id = String(output.artifact_id);
    const url = typeof output.published_url === 'string' ? output.published_url : null;
    const moved = await parts.endPublishing(tx, { id, runId: run.id, now: deps.clock.now(), ok: true, url });
    if (moved)
      await recordEvent(tx, deps, moved.workspaceId, 'artifact.published', {
        artifact_id: id,
        pipeline_id: moved.pipelineId,
        run_id: run.id,
        published_url: url,
        parts: Number(output.parts) || 0,
      });
  },
  async onFailed(tx, ctx, failure: RunFailure) {
    const { deps, run } = ctx;
    const id = ctx.input.artifact_id;
    if (typeof id !== 'string') return;
    const moved = await parts.endPublishing(tx, { id, runId: run.id, now: deps.clock.now(), ok: false, code: failure.code, message: failure.message });
    if (!moved) return;
    await recordEvent(tx, deps, moved.workspaceId, 'artifact.publish_failed', {
      artifact_id: id,
      pipeline_id: moved.pipelineId,
      run_id: run.id,
      error: { code: failure.code.slice(0, 64), message: failure.message.slice(0, 2000) },
      published_urls: await partUrls(tx, id),
    });
  },
};
