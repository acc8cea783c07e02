// Artifacts: read, publish (now or at a time, through a durable `publish` run), unschedule.
import type { components } from '../../generated/api.js';
import { API_PREFIX, type AppError, forbidden, notFound, stateConflict, validationFailed } from '../errors.js';
import * as store from '../store/artifacts.js';
import type { ArtifactRow } from '../store/artifacts.js';
import type { Caller, CommitHook, ServiceDeps } from './context.js';
import { artifactView, destinationView, runView } from './views.js';
import { platformOf, postingPlatform, TARGET_PLATFORMS } from '../platforms/index.js';
import { findPipeline, type PipelineRow } from '../store/pipelines.js';
import * as dest from '../store/destinations.js';
import { isManual, type ChosenDestination, type DestinationRow as DestRow } from '../store/destinations.js';
import { defaultDestinations, noDestination, pendingDestinations, resolveRefs } from './destinations.js';
import { transaction } from '../store/database.js';
import * as parts from '../store/published-parts.js';
import { cancelQueuedRun } from '../store/runs.js';
import { listVariantsOf } from '../store/variants.js';
import { enqueueRun } from '../jobs/enqueue.js';
import { recordEvent } from './events.js';
import { listVariants, publishableParts, refusedPart } from './variants.js';
import { publishTime } from './publish-time.js';
import { decodeTimeCursor, encodeTimeCursor } from './cursor.js';
import { DEFAULT_PAGE_SIZE } from './posts.js';
import { mediaOf } from './media-items.js';
import { refuseMedia } from './publish-media.js';
import { adapterContext, requireAccount } from './accounts.js';
import { upstreamAppError } from './upstream.js';
import { publishApproval } from './approval.js';

type S = components['schemas'];
export type PublishAccepted = S['PublishAccepted'];

export async function getArtifact(deps: ServiceDeps, caller: Caller, id: string) {
  const a = await store.findArtifact(deps.db, caller.workspaceId, id);
  if (!a) throw notFound('artifact');
  return viewOf(deps, a);
}

/**
 * The artifact as the contract shows it, with its variants and the parts already live. Parts are
 * recorded only by the publish run the artifact was handed to, and `publishRunId` is never cleared
 * once set (store/published-parts.ts), so an artifact without one has none: one statement fewer
 * for every artifact never published (issue 12, part 3).
 */
export async function viewOf(deps: Pick<ServiceDeps, 'db'>, a: ArtifactRow) {
  // A post recorded by hand (mark-published) sets publishedAt, so an artifact with neither has no destination.
  const none = a.publishRunId === null && a.publishedAt === null;
  const [variants, live, destinations] = await Promise.all([
    listVariants(deps, a),
    none ? [] : parts.listParts(deps.db, a.id),
    none ? [] : dest.listDestinations(deps.db, a.id),
  ]);
  return artifactView(a, variants, live, destinations);
}

/** The states a publish may start from (a scheduled one is rescheduled, or published now). */
const PUBLISHABLE = ['review', 'ready', 'publish_failed', 'scheduled'];

const fetchIt = (id: string) => ({ suggestedAction: 'fetch_artifact', suggestedEndpoint: `GET ${API_PREFIX}/artifacts/${id}` });

function refusal(state: string, id: string): AppError {
  if (state === 'draft') {
    return forbidden('The artifact is still a draft; move it to review or ready before publishing.', fetchIt(id));
  }
  if (state === 'publishing') {
    return stateConflict('The artifact is being published by its publish run; follow the run (publish_run_id) or fetch the artifact in a moment.', fetchIt(id));
  }
  return stateConflict(`The artifact is ${state} and cannot be published.`, fetchIt(id));
}

const PUBLIC_AUDIENCES = new Set(['public', 'unlisted']);

export type PublishBody = Pick<
  S['PublishRequest'],
  'confirm_non_public' | 'allow_missing_alt_text' | 'at' | 'local_time' | 'time_zone' | 'utc_offset' | 'destinations'
>;

/**
 * Where a publish goes: the request's destinations, else the artifact's own not yet live (a
 * failed or unscheduled publish resumes them), else the pipeline's defaults. A destination with
 * parts already live stays among them (its thread is finished, never dropped half-posted).
 */
async function chooseDestinations(deps: ServiceDeps, caller: Caller, a: ArtifactRow, pipeline: PipelineRow, body: PublishBody, rows: DestRow[]) {
  let chosen: ChosenDestination[];
  if (body.destinations) chosen = await resolveRefs(deps, caller.workspaceId, body.destinations, 'body.destinations', true);
  else if (rows.some((r) => r.state !== 'live' && !isManual(r))) chosen = await pendingDestinations(deps, caller.workspaceId, rows);
  else chosen = await defaultDestinations(deps, pipeline);
  const live = new Set(rows.filter((r) => r.state === 'live').map((r) => r.destination));
  const withParts = new Set((await parts.listParts(deps.db, a.id)).map((p) => p.destination));
  const halfPosted = rows.filter((r) => !live.has(r.destination) && withParts.has(r.destination) && !chosen.some((c) => c.destination === r.destination));
  if (halfPosted.length) chosen = [...chosen, ...(await pendingDestinations(deps, caller.workspaceId, halfPosted))];
  const open = chosen.filter((c) => !live.has(c.destination));
  if (!open.length) {
    if (chosen.length)
      throw stateConflict(
        `The artifact ${a.id} is already live at every destination named (${chosen.map((c) => `${c.platform} ${c.handle}`).join(', ')}).`,
        fetchIt(a.id),
      );
    throw await noDestination(deps, pipeline, a.id);
  }
  return open;
}

/**
 * POST /artifacts/{id}/publish. The artifact moves to `publishing` (or `scheduled`, with a time)
 * and a `publish` run is queued in the same transaction, which posts to each destination: 202
 * with both. The request's checks (state, audience, destinations and their accounts, lengths and
 * images on each destination's platform) come first, so a refused publish changes nothing.
 */
export async function publishArtifact(
  deps: ServiceDeps,
  caller: Caller,
  id: string,
  body: PublishBody,
  onCommit?: CommitHook<PublishAccepted>,
): Promise<{ status: 202; body: PublishAccepted }> {
  const a = await store.findArtifact(deps.db, caller.workspaceId, id);
  if (!a) throw notFound('artifact');
  const when = publishTime(body, deps.clock.now());
  if (!PUBLISHABLE.includes(a.state)) throw refusal(a.state, id);
  // The approval gate: 403 approval_required for a caller who cannot approve what is not approved.
  const approval = await publishApproval(deps, caller, a);
  // Nothing written for followers or connections goes public by accident.
  if (!PUBLIC_AUDIENCES.has(a.sourceVisibility) && body.confirm_non_public !== true) {
    throw forbidden(
      `The artifact ${id} is drawn from ${a.sourceVisibility}-only posts; publishing it makes that text public. Send confirm_non_public: true to publish it anyway.`,
      fetchIt(id),
    );
  }
  const pipeline = await findPipeline(deps.db, caller.workspaceId, a.pipelineId);
  if (!pipeline) throw notFound('pipeline');
  const rows = await dest.listDestinations(deps.db, id);
  // 424 now rather than a failed run later, when an account is missing or known dead.
  const chosen = await chooseDestinations(deps, caller, a, pipeline, body, rows);
  for (const name of new Set(chosen.map((c) => c.platform))) {
    // A chosen destination is an account that posts (resolveRefs checked): its platform has a folder.
    const def = postingPlatform(name);
    if (!def) throw new Error(`no platform folder for ${name}`);
    const { adapter, name: platform } = def;
    const texts = await publishableParts(deps, a, platform);
    if (adapter.maxParts !== undefined && texts.length > adapter.maxParts)
      throw stateConflict(
        `The artifact cannot be published on ${platform} as it is: its ${platform} variant is a thread of ${texts.length} parts, and ${platform} has no threads (at most ${adapter.maxParts} post${adapter.maxParts === 1 ? '' : 's'}). Send one text that fits with PUT ${API_PREFIX}/artifacts/${id}/variants/${platform} (parts: [text]).`,
        fetchIt(id),
      );
    const unfit = refusedPart(adapter, texts, a.contentWarning);
    if (unfit) throw stateConflict(`The artifact cannot be published on ${platform} as it is (part ${unfit.position + 1}): ${unfit.why}.`, fetchIt(id));
    // Its images: each an image with alt text the platform takes, and room for all in the thread.
    const refused = refuseMedia(mediaOf(a), def, texts.length, body.allow_missing_alt_text === true, fetchIt(id));
    if (refused) throw refused;
    // What the platform checks of the account itself (Threads: a public address for images, its daily quota).
    if (adapter.refusesPublish) {
      const images = mediaOf(a).filter((m) => m.type === 'image' || m.type === 'gif').length;
      for (const c of chosen.filter((x) => x.platform === platform)) {
        const account = await requireAccount(deps, caller.workspaceId, platform, c.handle);
        if (!account) continue;
        let why: string | null;
        try {
          why = await adapter.refusesPublish(adapterContext(deps, account.proxyUrl), account.account.handle, account.creds, { parts: texts, images });
        } catch (err) {
          throw upstreamAppError(err, { platform, handle: c.handle, probe: false });
        }
        if (why) throw stateConflict(`The artifact cannot be published on ${platform} ${c.handle}: ${why}`, fetchIt(id));
      }
    }
  }
  const accepted = await transaction(deps.db, async (tx) => {
    const run = await enqueueRun(tx, deps, {
      workspaceId: caller.workspaceId,
      pipelineId: a.pipelineId,
      kind: 'publish',
      input: { artifact_id: id, ...(body.confirm_non_public === true ? { confirm_non_public: true } : {}) },
      runAfter: when?.at,
    });
    // Compare-and-set on the state we checked: a concurrent publish or move makes this one 409.
    const moved = await parts.assignPublishRun(tx, {
      id,
      workspaceId: caller.workspaceId,
      from: [a.state],
      runId: run.id,
      now: deps.clock.now(),
      schedule: when,
      currentRunId: a.publishRunId,
      ...approval,
    });
    if (!moved) {
      const now = await store.findArtifact(tx, caller.workspaceId, id);
      // Its approval withdrawn meanwhile (an edit): the gate's refusal, as if it came first.
      if (now && approval.requireApproved && PUBLISHABLE.includes(now.state)) await publishApproval({ db: tx, clock: deps.clock }, caller, now);
      throw refusal(now?.state ?? 'gone', id);
    }
    await dest.assignDestinations(tx, {
      artifactId: id,
      workspaceId: caller.workspaceId,
      chosen,
      runId: run.id,
      state: when ? 'scheduled' : 'publishing',
      now: deps.clock.now(),
    });
    // A reschedule (or a publish-now of a scheduled artifact) replaces the schedule's run.
    if (a.state === 'scheduled' && a.publishRunId)
      await cancelQueuedRun(tx, { id: a.publishRunId, now: deps.clock.now(), code: 'rescheduled', message: `Replaced by the publish run ${run.id}.` });
    if (when)
      await recordEvent(tx, deps, caller.workspaceId, 'artifact.scheduled', {
        artifact_id: id,
        pipeline_id: a.pipelineId,
        run_id: run.id,
        scheduled_at: when.at.toISOString(),
      });
    const [done, destinations] = await Promise.all([parts.listParts(tx, id), dest.listDestinations(tx, id)]);
    const answer: PublishAccepted = { artifact: artifactView(moved, await listVariants({ db: tx }, moved), done, destinations), run: runView(run) };
    await onCommit?.(tx, answer);
    return answer;
  });
  deps.jobs.kick();
  if (when) deps.events.wake();
  return { status: 202, body: accepted };
}

type ManualPlatform = S['MarkPublishedRequest']['platform'];

/**
 * The hosts a post made by hand may be at, per platform: the platform's own public web hosts,
 * nothing else (no other platform's, no address of this network, no IP literal), from its folder
 * (`manualPostHosts` in server/platforms/<name>/index.ts).
 */
export const MANUAL_POST_HOSTS = Object.fromEntries(
  TARGET_PLATFORMS.flatMap((p) => {
    const hosts = platformOf(p).manualPostHosts;
    return hosts ? [[p, hosts]] : [];
  }),
) as Record<ManualPlatform, readonly string[]>;

/**
 * Why `url` cannot be the address of a post made by hand on `platform`, or null: it must be an
 * `https` URL on one of the platform's own hosts (MANUAL_POST_HOSTS), on the default port, with
 * no user name or password and a path to the post.
 */
export function manualPostUrlProblem(platform: ManualPlatform, url: string): string | null {
  const hosts: readonly string[] = MANUAL_POST_HOSTS[platform] ?? [];
  const accepted = `an https address of a post on ${platform} (host ${hosts.join(', ')}; no user name, password or port)`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `is not a URL; send ${accepted}.`;
  }
  if (u.protocol !== 'https:') return `is not https; send ${accepted}.`;
  if (u.username || u.password) return `carries a user name or password; send ${accepted}.`;
  if (u.port) return `names a port; send ${accepted}.`;
  if (!hosts.includes(u.hostname)) return `is on ${u.hostname ? `the host ${u.host}` : 'no host'}, not ${platform}'s; send ${accepted}.`;
  if (u.pathname === '/' || u.pathname === '') return `is ${platform}'s home page, not a post; send ${accepted}.`;
  return null;
}

/** The states a post made by hand may be recorded in (a draft is 403, discarded 409). */
const MARKABLE = ['review', 'ready', 'scheduled', 'publishing', 'published', 'publish_failed'];

/**
 * POST /artifacts/{id}/mark-published: a post made by hand on a platform the service cannot post
 * to, recorded as a live destination. From review or ready, with no other destination open, the
 * artifact becomes published (the address its published_url when it had none).
 */
export async function markPublished(
  deps: ServiceDeps,
  caller: Caller,
  id: string,
  body: Pick<S['MarkPublishedRequest'], 'platform' | 'url' | 'handle'>,
  onCommit?: CommitHook<S['Artifact']>,
): Promise<S['Artifact']> {
  const badUrl = manualPostUrlProblem(body.platform, body.url);
  if (badUrl) throw validationFailed('body.url', badUrl);
  const a = await store.findArtifact(deps.db, caller.workspaceId, id);
  if (!a) throw notFound('artifact');
  if (a.state === 'draft') throw forbidden('The artifact is still a draft; move it to review or ready first.', fetchIt(id));
  if (!MARKABLE.includes(a.state)) throw stateConflict(`The artifact is ${a.state}; a post made by hand cannot be recorded on it.`, fetchIt(id));
  const view = await transaction(deps.db, async (tx) => {
    const now = deps.clock.now();
    await dest.recordManual(tx, { artifactId: id, workspaceId: caller.workspaceId, platform: body.platform, handle: body.handle ?? null, url: body.url, now });
    let current = a;
    const rows = await dest.listDestinations(tx, id);
    if ((a.state === 'review' || a.state === 'ready') && rows.every((r) => r.state === 'live')) {
      const moved = await store.transitionArtifact(tx, {
        id,
        workspaceId: caller.workspaceId,
        from: [a.state],
        to: 'published',
        now,
        publishedUrl: a.publishedUrl ?? body.url,
      });
      if (!moved) {
        const again = await store.findArtifact(tx, caller.workspaceId, id);
        throw stateConflict(`The artifact moved to ${again?.state ?? 'gone'} meanwhile; fetch it and try again.`, fetchIt(id));
      }
      current = moved;
      const all = await parts.listParts(tx, id);
      await recordEvent(tx, deps, caller.workspaceId, 'artifact.published', {
        artifact_id: id,
        pipeline_id: a.pipelineId,
        published_url: moved.publishedUrl,
        parts: 0,
        destinations: rows.map((r) => destinationView(r, all)),
      });
    }
    // Recorded in review or ready only when another destination is open, so the artifact has a
    // publish run then, and viewOf reads its destinations.
    const answer = await viewOf({ db: tx }, current);
    await onCommit?.(tx, answer);
    return answer;
  });
  deps.events.wake();
  return view;
}

/** DELETE /artifacts/{id}/schedule: scheduled → ready, and the schedule's run is cancelled. */
export async function unscheduleArtifact(deps: ServiceDeps, caller: Caller, id: string): Promise<S['Artifact']> {
  const a = await store.findArtifact(deps.db, caller.workspaceId, id);
  if (!a) throw notFound('artifact');
  const notScheduled = (state: string) =>
    stateConflict(
      state === 'publishing' ? 'The artifact is already being published; it is too late to unschedule it.' : `The artifact is ${state}, not scheduled.`,
      fetchIt(id),
    );
  if (a.state !== 'scheduled') throw notScheduled(a.state);
  const moved = await transaction(deps.db, async (tx) => {
    const m = await parts.unschedule(tx, { id, workspaceId: caller.workspaceId, now: deps.clock.now() });
    if (!m) {
      const now = await store.findArtifact(tx, caller.workspaceId, id);
      throw notScheduled(now?.state ?? 'gone');
    }
    await dest.releaseDestinations(tx, { artifactId: id, runId: a.publishRunId, now: deps.clock.now() });
    if (a.publishRunId)
      await cancelQueuedRun(tx, {
        id: a.publishRunId,
        now: deps.clock.now(),
        code: 'unscheduled',
        message: 'The artifact was unscheduled before its publish time.',
      });
    return m;
  });
  return viewOf(deps, moved);
}

/** GET /pipelines/{id}/schedule: a page of the scheduled artifacts, soonest first (then by id), with signed cursors like the posts list. */
export async function listSchedule(
  deps: ServiceDeps,
  caller: Caller,
  pipelineId: string,
  q: { cursor?: string; limit?: number } = {},
): Promise<S['ScheduleList']> {
  const pipeline = await findPipeline(deps.db, caller.workspaceId, pipelineId);
  if (!pipeline) throw notFound('pipeline');
  const limit = q.limit ?? DEFAULT_PAGE_SIZE;
  // The scope binds a cursor to this workspace and pipeline's schedule.
  const scope = `schedule:${caller.workspaceId}:${pipeline.id}`;
  const pos = decodeTimeCursor(deps.cursorKey, scope, q.cursor);
  const after = pos && { scheduledAt: pos.at, id: pos.id };
  const found = await parts.listScheduled(deps.db, { workspaceId: caller.workspaceId, pipelineId, after, limit: limit + 1 });
  const rows = found.slice(0, limit);
  const last = rows[rows.length - 1];
  const next_cursor = found.length > limit && last?.scheduledAt ? encodeTimeCursor(deps.cursorKey, scope, last.scheduledAt, last.id) : null;
  const ids = rows.map((r) => r.id);
  const [live, variants, destinations] = await Promise.all([
    parts.listPartsOf(deps.db, ids),
    listVariantsOf(deps.db, caller.workspaceId, ids),
    dest.listDestinationsOf(deps.db, ids),
  ]);
  const of = <T extends { artifactId: string }>(list: T[], id: string) => list.filter((x) => x.artifactId === id);
  return { pipeline_id: pipelineId, data: rows.map((r) => artifactView(r, of(variants, r.id), of(live, r.id), of(destinations, r.id))), next_cursor };
}
