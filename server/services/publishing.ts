// The `publish` run: posts an artifact's parts upstream at each of its destinations (issue 23),
// every destination on its own (its platform's variant, its own parts and keys), in order, each
// part as a reply to the one before, each exactly once. A part is recorded in PublishedPart as soon as the platform has it,
// so a run that is retried (a transient failure, a restart, a kill -9, another instance taking
// over an expired lease) or a later publish after a failure continues from the first missing
// part; each part also carries a key fixed for it upstream (Mastodon's Idempotency-Key, a fixed
// Bluesky record key), which covers a crash between the post and its record.
import { AdapterError, type Published } from '../adapters/index.js';
import { postingPlatform } from '../platforms/index.js';
import { JobError, TransientError, type JobContext, type JobHooks, type RunFailure } from '../jobs/registry.js';
import type { Db } from '../store/database.js';
import { RETIRED } from '../store/posts.js';
import * as parts from '../store/published-parts.js';
import type { PublishedPartRow } from '../store/published-parts.js';
import type { ArtifactRow } from '../store/artifacts.js';
import * as dest from '../store/destinations.js';
import type { DestinationRow } from '../store/destinations.js';
import { adapterContext, markAccountDead, requireAccount } from './accounts.js';
import { AppError } from '../errors.js';
import { recordEvent } from './events.js';
import { recordAudit, SYSTEM } from './audit.js';
import { destinationView } from './views.js';
import { mediaOf } from './media-items.js';
import { mediaByPart, uploadPartImages } from './publish-media.js';
import { publishableParts, refusedPart } from './variants.js';
import { warningOfPart } from './platform-text.js';
import { upstreamJobError } from './upstream.js';
import { gateOn } from './approval.js';

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
  if (err instanceof TransientError) return new TransientError(`${err.message}. ${summary}`, err.code, err.upstreamStatus, err.retryAt);
  if (err instanceof JobError) return new JobError(err.code, `${err.message}. ${summary}`, err.upstreamStatus);
  return err;
}

/** What one destination's attempt came to. */
type Outcome = { kind: 'live'; url: string | null; parts: number } | { kind: 'failed'; code: string; message: string } | { kind: 'retry'; err: unknown };

export async function publishJob(ctx: JobContext): Promise<Record<string, unknown>> {
  const { deps, run } = ctx;
  const id = artifactIdOf(ctx);
  // Only the run the artifact names publishes it: an unschedule or a reschedule meanwhile took it away.
  const a = await parts.startPublishing(deps.db, { id, runId: run.id, now: deps.clock.now() });
  if (!a) return { artifact_id: id, skipped: "The artifact is no longer this run's to publish (unscheduled, rescheduled or gone)." };
  // The approval gate, again when the run posts (a schedule that comes due, the gate turned on
  // since): nothing the workspace requires approved goes out without its approval.
  if (!a.approvedAt && (await gateOn(deps.db, a.workspaceId)))
    throw new JobError(
      'approval_required',
      `The artifact ${id} is not approved (approved_at is null) and its workspace requires a person's approval before publishing; approve it (POST /artifacts/${id}/transition with to: ready, or in the review desk) and publish it again.`,
    );
  // Retired as a source after this run was queued (a direct message): it goes out only if the request confirmed.
  if (a.sourceVisibility === RETIRED && ctx.input.confirm_non_public !== true) {
    throw new JobError(
      'forbidden',
      `The artifact ${id} draws on a direct message that ingest retired as a source; publish it again with confirm_non_public: true to make that text public.`,
    );
  }
  await dest.startDestinations(deps.db, { artifactId: id, runId: run.id, now: deps.clock.now() });
  const mine = (await dest.listDestinations(deps.db, id)).filter((d) => d.runId === run.id && !dest.isManual(d));
  if (!mine.length) throw new JobError('no_destination', `The artifact ${id} has no destination for this run to publish to.`);
  // Each destination on its own: one failing (a revoked account, a refused part) never stops another.
  const open = mine.filter((d) => d.state === 'publishing');
  const outcomes = await Promise.all(open.map((d) => publishTo(ctx, a, d)));
  const retry: string[] = [];
  let retryErr: unknown = null;
  const failed: Array<{ d: DestinationRow; code: string; message: string }> = mine
    .filter((d) => d.state === 'failed')
    .map((d) => ({ d, code: d.errorCode ?? 'failed', message: d.errorMessage ?? '' }));
  for (const [i, o] of outcomes.entries()) {
    const d = open[i];
    const where = `${d.platform} ${d.handle ?? d.destination}`;
    if (o.kind === 'retry') {
      const e = o.err as Error;
      retryErr ??= o.err;
      retry.push(`${where}: ${e.message}`);
      await dest.setDestination(deps.db, {
        artifactId: id,
        destination: d.destination,
        runId: run.id,
        now: deps.clock.now(),
        state: 'publishing',
        error: { code: errorCode(o.err), message: e.message },
      });
    } else if (o.kind === 'failed') {
      failed.push({ d, code: o.code, message: o.message });
      await dest.setDestination(deps.db, {
        artifactId: id,
        destination: d.destination,
        runId: run.id,
        now: deps.clock.now(),
        state: 'failed',
        error: { code: o.code, message: o.message },
      });
    } else {
      await dest.setDestination(deps.db, { artifactId: id, destination: d.destination, runId: run.id, now: deps.clock.now(), state: 'live', url: o.url });
    }
  }
  const failures = failed.map((f) => `${f.d.platform} ${f.d.handle ?? f.d.destination}: ${f.message}`);
  if (retryErr) {
    // Retried by the worker; the destinations live or failed are left as they are.
    const gaveUp = failures.length ? ` Failed for good: ${failures.join(' | ')}` : '';
    // Not before the latest instant an upstream asked for (a 429's reset at one destination).
    const retryAt = latest(outcomes.map((o) => (o.kind === 'retry' && o.err instanceof TransientError ? o.err.retryAt : null)));
    throw new TransientError(
      `${retry.join(' | ')}${gaveUp}`,
      errorCode(retryErr),
      retryErr instanceof TransientError ? retryErr.upstreamStatus : null,
      retryAt,
    );
  }
  if (failed.length) {
    const live = mine.length - failed.length;
    const lead = mine.length > 1 ? `${failed.length} of ${mine.length} destinations failed (${live} live). ` : '';
    throw new JobError(failed[0].code, `${lead}${failures.join(' | ')}`);
  }
  // The artifact's published_url: the first destination's (in the order chosen), which an earlier run may have posted.
  const firstDest = (await dest.listDestinations(deps.db, id)).find((d) => !dest.isManual(d)) ?? mine[0];
  const urls = (await parts.listPartsAt(deps.db, id, firstDest.destination)).map((p) => p.url ?? null);
  return { artifact_id: id, parts: urls.length, published_url: urls[0] ?? null, published_urls: urls, destinations: mine.length };
}

const latest = (dates: Array<Date | null>): Date | null => dates.reduce<Date | null>((a, d) => (d && (!a || d > a) ? d : a), null);

const errorCode = (err: unknown) => (err instanceof TransientError || err instanceof JobError || err instanceof AppError ? err.code : 'internal_error');

/**
 * Posts the artifact at one destination: its platform's parts, its images, each part once, in
 * order (the parts already recorded at this destination are skipped). Never throws: the outcome
 * says live, failed for good (with the code) or worth retrying.
 */
async function publishTo(ctx: JobContext, a: ArtifactRow, d: DestinationRow): Promise<Outcome> {
  try {
    return await postThread(ctx, a, d);
  } catch (err) {
    if (err instanceof TransientError || (err instanceof AppError && err.retryable)) return { kind: 'retry', err };
    if (err instanceof JobError || err instanceof AppError) return { kind: 'failed', code: err.code, message: err.message };
    ctx.log.error({ err, destination: d.destination }, 'publishing to a destination failed unexpectedly');
    return { kind: 'failed', code: 'internal_error', message: 'Publishing failed unexpectedly; the server log has the details.' };
  }
}

async function postThread(ctx: JobContext, a: ArtifactRow, d: DestinationRow): Promise<Outcome> {
  const { deps } = ctx;
  const id = a.id;
  const def = postingPlatform(d.platform);
  const adapter = def?.adapter;
  if (!def || !adapter?.publish) throw new JobError('invalid_destination', `${d.platform} cannot be published to by this service.`);
  const platform = def.name;
  // A missing or dead account fails this destination (credential_missing / credential_dead as its code).
  const account = await requireAccount(deps, a.workspaceId, platform, d.handle ?? '');
  if (!account || account.account.id !== d.accountId)
    throw new JobError('credential_missing', `The ${platform} account ${d.handle ?? d.destination} is no longer connected.`);
  const texts = await publishableParts(deps, a, platform);
  // Checked when the publish was requested; checked again before anything is posted, so that a
  // part the platform would refuse (a variant written before the content warning was counted)
  // fails the destination without leaving half a thread live.
  const unfit = refusedPart(adapter, texts, a.contentWarning);
  if (unfit)
    throw new JobError(
      'text_unfit',
      `Part ${unfit.position + 1} of ${texts.length} cannot be posted on ${platform}: ${unfit.why}. Send the variant's text or parts again.`,
    );
  // The images each part carries (the first part first, 4 per part); checked by the request.
  const media = mediaOf(a).filter((m) => m.type === 'image' || m.type === 'gif');
  const imagesOf = mediaByPart(media, def, texts.length);
  // One context per destination: the adapter verifies the account (or opens its session) once.
  const memo = new Map<string, Promise<unknown>>();
  const actx = () => ({ ...adapterContext(deps, account.proxyUrl), memo });
  const done: Array<PublishedPartRow | undefined> = [];
  for (const p of await parts.listPartsAt(deps.db, id, d.destination)) done[p.position] = p;
  // An earlier attempt at this destination that ended without an answer (a retried run, or a
  // publish again after a failure) may have made its first missing part: the adapter of a platform
  // without idempotency keys reads back before posting that part.
  const uncertain = ctx.run.attempts > 1 || d.errorCode !== null || done.length > 0;
  let firstMissing = true;
  for (let i = 0; i < texts.length; i++) {
    if (done[i]) continue;
    const mayExist = uncertain && firstMissing;
    firstMissing = false;
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
        platform: def,
        workspaceId: a.workspaceId,
        artifactId: id,
        destination: d.destination,
        position: i,
        items: imagesOf[i] ?? [],
        all: media,
      });
      // The upstream keys are the artifact's and the part's: each platform scopes them to the
      // account (Mastodon's Idempotency-Key per user, a Bluesky record key in the account's own
      // repository), and an artifact goes to an account at most once.
      posted = await adapter.publish(actx(), account.account.handle, account.creds, {
        text: texts[i],
        media: uploaded,
        key: { id, createdAt: a.createdAt, position: i },
        contentWarning: warningOfPart(i, a.contentWarning),
        replyTo: i > 0 ? { root: asPublished(root!), parent: asPublished(parent!) } : null,
        mayExist,
        // The destination was chosen before any attempt at it: a read-back looks no further back.
        attemptsSince: d.createdAt,
      });
    } catch (err) {
      if (err instanceof AdapterError && err.kind === 'credential_rejected') await markAccountDead(deps, null, account.account.id, err.message);
      const summary = `Part ${i + 1} of ${texts.length} failed. ${liveSummary(done, texts.length)}`;
      throw withSummary(upstreamJobError(err, platform), summary);
    }
    const row: PublishedPartRow = {
      artifactId: id,
      destination: d.destination,
      position: i,
      externalId: posted.externalId,
      cid: posted.cid,
      url: posted.url,
      postedAt: deps.clock.now(),
    };
    await parts.recordPart(deps.db, row);
    done[i] = row;
  }
  const first = done[0];
  return { kind: 'live', url: first?.url ?? first?.externalId ?? null, parts: texts.length };
}

/** Each destination of the artifact, as the events show it. */
async function destinationsOf(db: Db, artifactId: string) {
  const [rows, all] = await Promise.all([dest.listDestinations(db, artifactId), parts.listParts(db, artifactId)]);
  return rows.map((d) => destinationView(d, all));
}

async function partUrls(db: Db, artifactId: string): Promise<Array<string | null>> {
  const rows = await dest.listDestinations(db, artifactId);
  const first = rows.find((d) => !dest.isManual(d));
  if (!first) return [];
  return (await parts.listPartsAt(db, artifactId, first.destination)).map((p) => p.url ?? p.externalId);
}

/** A publish run's outcome in the record of who did what: the service's doing (actor `system`), with the run. */
function recordOutcome(tx: Db, ctx: JobContext, workspaceId: string, action: string, summary: string, detail: Record<string, unknown>) {
  const subject = { type: 'artifact', id: artifactIdOf(ctx) };
  return recordAudit(tx, ctx.deps, { workspaceId, actor: SYSTEM, action, subject, summary, detail: { run_id: ctx.run.id, ...detail } });
}

export const publishHooks: JobHooks = {
  async onSucceeded(tx, ctx, output) {
    if (!output || output.skipped) return;
    const { deps, run } = ctx;
    const id = String(output.artifact_id);
    const url = typeof output.published_url === 'string' ? output.published_url : null;
    const moved = await parts.endPublishing(tx, { id, runId: run.id, now: deps.clock.now(), ok: true, url });
    if (!moved) return;
    await recordEvent(tx, deps, moved.workspaceId, 'artifact.published', {
      artifact_id: id,
      pipeline_id: moved.pipelineId,
      run_id: run.id,
      published_url: url,
      parts: Number(output.parts) || 0,
      destinations: await destinationsOf(tx, id),
    });
    // The service published it (at once, or at its scheduled time): the record says so, with the run.
    await recordOutcome(tx, ctx, moved.workspaceId, 'artifact.published', `Published the artifact${url ? `: ${url}` : ''}`, {
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
    // The destinations still open when the run gave up fail with its error.
    await dest.failDestinations(tx, { artifactId: id, runId: run.id, now: deps.clock.now(), code: failure.code, message: failure.message });
    await recordEvent(tx, deps, moved.workspaceId, 'artifact.publish_failed', {
      artifact_id: id,
      pipeline_id: moved.pipelineId,
      run_id: run.id,
      error: { code: failure.code.slice(0, 64), message: failure.message.slice(0, 2000) },
      published_urls: await partUrls(tx, id),
      destinations: await destinationsOf(tx, id),
    });
    await recordOutcome(tx, ctx, moved.workspaceId, 'artifact.publish_failed', `Publishing the artifact failed: ${failure.message}`.slice(0, 300), {
      error_code: failure.code.slice(0, 64),
    });
  },
  async onRetry(ctx, _failure, runAfter) {
    const id = ctx.input.artifact_id;
    if (typeof id === 'string') await dest.setNextAttempt(ctx.deps.db, { artifactId: id, runId: ctx.run.id, at: runAfter });
  },
};
