// Diagnose: every problem of a pipeline we can find from the database and the configuration
// (no upstream call), each with the action and the endpoint that fix it. The facts are gathered
// once (`pipelineFacts`) and read by pure checks; the inbox reads the same facts for its anomalies.
import net from 'node:net';
import type { components } from '../../generated/api.js';
import { adapterFor } from '../adapters/index.js';
import { AdapterError } from '../adapters/types.js';
import { API_PREFIX, notFound } from '../errors.js';
import { AllowList, nonPublicRange } from '../outbound/address-policy.js';
import { findAccount, type AccountRow } from '../store/accounts.js';
import { accountsNeedingSignIn } from '../store/oauth.js';
import type { ArtifactRow } from '../store/artifacts.js';
import * as health from '../store/health.js';
import { listPublishFailed, listScheduled } from '../store/published-parts.js';
import { findPipeline, type PipelineRow, type RunRow } from '../store/pipelines.js';
import { artifactsFromRetired } from '../store/posts.js';
import type { Caller, ServiceDeps } from './context.js';
import { mediaIssues, mediaOf } from './media-items.js';
import { artifactsWithMedia } from '../store/media.js';
import { variantsOfPipeline, type PipelineVariantRow } from '../store/variants.js';
import { isTargetPlatform } from './platform-text.js';
import { isManual, listDestinations } from '../store/destinations.js';
import { artifactOfRun, pipelineDestinations } from './views.js';
import { variantProblem } from './variants.js';

type S = components['schemas'];
export type Issue = S['DiagnoseIssue'];

const HOUR = 60 * 60 * 1000;
/** No successful ingest for this long makes a pipeline stale. */
export const STALE_AFTER_MS = 24 * HOUR;
/** A due run still queued after this long means the worker is not keeping up (or not running). */
export const STALLED_AFTER_MS = 15 * 60 * 1000;
export const DRAFT_FAILURE_WINDOW_MS = 24 * HOUR;
export const DELIVERY_FAILURE_WINDOW_MS = 7 * 24 * HOUR;
/** Scheduled artifacts due within this long show in the inbox. */
export const DUE_SOON_MS = 24 * HOUR;

export interface Facts {
  pipeline: PipelineRow;
  now: Date;
  needsAccount: boolean;
  account: AccountRow | null;
  ingest: Awaited<ReturnType<typeof health.ingestRuns>>;
  stalled: RunRow[];
  /** Runs waiting for another attempt after a transient failure. */
  retrying: RunRow[];
  postCount: number;
  /** Posts whose date the source wrote in a form that could not be read (dated at their first ingest instead). */
  unreadDates: { count: number; samples: string[] };
  /** Drafting runs that failed recently, newest first, with the artifact each reserved. */
  failedDrafts: Array<{ run: RunRow; artifact: ArtifactRow | null }>;
  deliveries: Awaited<ReturnType<typeof health.failedDeliveries>>;
  /** Artifacts whose publish failed for good (`publish_failed`), newest first. */
  publishFailed: ArtifactRow[];
  /** Artifacts scheduled within the next 24 hours, soonest first. */
  dueSoon: ArtifactRow[];
  llm: ServiceDeps['config']['llm'];
  allowHosts: string[];
  /** Unpublished artifacts with an image (GIF, video) that has no alt text, newest first. */
  missingAltText: ArtifactRow[];
  /** Variants of review, ready, scheduled and publish_failed artifacts that cannot be posted as they are, with why; newest artifact first. */
  unpostable: Array<{ variant: PipelineVariantRow; reason: string }>;
  /** Scheduled artifacts with variants for platforms none of their destinations is on (written for export only). */
  exportOnly: Array<{ variant: PipelineVariantRow }>;
  /** Artifacts drawn from a retired direct message (not discarded), newest first. */
  fromDirect: ArtifactRow[];
  /** Signed-in accounts of the workspace that need the person: refused their renewal (dead), or end within a week (`reconnectBy`). */
  signIns: AccountRow[];
}

/** How long before a signed-in grant ends (LinkedIn's 60 days without a refresh token) the inbox and diagnose warn. */
export const RECONNECT_WARNING_MS = 7 * 24 * HOUR;

/**
 * The pipeline's account. Only the expected refusal becomes "no account": a handle of the wrong
 * form for its platform names none. Anything else (the database failing) propagates, so that it
 * is a 500 and not a diagnosis that sends the agent to connect an account it already has.
 */
async function accountOf(deps: ServiceDeps, p: PipelineRow): Promise<AccountRow | null> {
  let handle: string;
  try {
    handle = adapterFor(p.platform).normalizeHandle(p.handle);
  } catch (err) {
    if (err instanceof AdapterError && err.kind === 'invalid_input') return null;
    throw err;
  }
  return findAccount(deps.db, p.workspaceId, p.platform, handle);
}

export async function pipelineFacts(deps: ServiceDeps, caller: Caller, pipelineId: string): Promise<Facts> {
  const pipeline = await findPipeline(deps.db, caller.workspaceId, pipelineId);
  if (!pipeline) throw notFound('pipeline');
  const now = deps.clock.now();
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const [account, ingest, stalled, retrying, postCount, failedRuns, deliveries, publishFailed, dueSoon, withMedia, variants, fromDirect, unreadDates] =
    await Promise.all([
      accountOf(deps, pipeline),
      health.ingestRuns(deps.db, pipeline.id),
      health.stalledRuns(deps.db, pipeline.id, ago(STALLED_AFTER_MS)),
      health.retryingRuns(deps.db, pipeline.id),
      health.countPosts(deps.db, pipeline.id),
      health.failedDraftRuns(deps.db, pipeline.id, ago(DRAFT_FAILURE_WINDOW_MS), 20),
      health.failedDeliveries(deps.db, caller.workspaceId, ago(DELIVERY_FAILURE_WINDOW_MS)),
      listPublishFailed(deps.db, { workspaceId: caller.workspaceId, pipelineId, limit: 20 }),
      listScheduled(deps.db, { workspaceId: caller.workspaceId, pipelineId, until: new Date(now.getTime() + DUE_SOON_MS), limit: 50 }),
      artifactsWithMedia(deps.db, pipeline.id, ['draft', 'review', 'ready'], 200),
      variantsOfPipeline(deps.db, { workspaceId: caller.workspaceId, pipelineId, states: ['review', 'ready', 'scheduled', 'publish_failed'], limit: 500 }),
      artifactsFromRetired(deps.db, pipeline.id, 50),
      health.unreadDates(deps.db, pipeline.id),
    ]);
  const signIns = await accountsNeedingSignIn(deps.db, caller.workspaceId, new Date(now.getTime() + RECONNECT_WARNING_MS));
  // Where each scheduled artifact goes: its destinations, else the pipeline's defaults.
  const defaults = pipelineDestinations(pipeline).map((d) => d.platform as string);
  const goesTo = new Map<string, string[]>();
  for (const id of new Set(variants.filter((v) => v.state === 'scheduled').map((v) => v.artifactId))) {
    const rows = (await listDestinations(deps.db, id)).filter((d) => !isManual(d));
    goesTo.set(id, rows.length ? rows.map((d) => d.platform) : defaults);
  }
  const artifacts = await health.findArtifacts(
    deps.db,
    caller.workspaceId,
    failedRuns.map(artifactOfRun).filter((id): id is string => id !== null),
  );
  return {
    pipeline,
    now,
    needsAccount: adapterFor(pipeline.platform).needsCredentials,
    account,
    ingest,
    stalled,
    retrying,
    postCount,
    unreadDates,
    failedDrafts: failedRuns.map((run) => ({ run, artifact: artifacts.find((a) => a.id === artifactOfRun(run)) ?? null })),
    deliveries,
    publishFailed,
    dueSoon,
    llm: deps.config.llm,
    allowHosts: deps.config.outbound.allowHosts,
    missingAltText: withMedia.filter((a) => mediaIssues(mediaOf(a)).length > 0),
    unpostable: variants.flatMap((variant) => {
      const reason = variantProblem(variant, variant.contentWarning);
      return reason ? [{ variant, reason }] : [];
    }),
    exportOnly: variants
      .filter((v) => v.state === 'scheduled' && isTargetPlatform(v.platform) && !(goesTo.get(v.artifactId) ?? []).includes(v.platform))
      .map((variant) => ({ variant })),
    fromDirect,
    signIns,
  };
}

// ---- the checks: facts in, issues out ----

const CONNECT = `POST ${API_PREFIX}/accounts/connect`;
const FROM_INTENT = `POST ${API_PREFIX}/pipelines/from-intent`;
const diagnoseEndpoint = (f: Facts) => `GET ${API_PREFIX}/pipelines/${f.pipeline.id}/diagnose`;
const pipelineEndpoint = (f: Facts) => `GET ${API_PREFIX}/pipelines/${f.pipeline.id}`;
const runFailure = (r: RunRow) => `${r.errorCode ?? 'failed'}: ${r.errorMessage ?? 'no message'}`;

export function accountIssues(f: Facts): Issue[] {
  const { platform, handle } = f.pipeline;
  if (!f.account) {
    if (!f.needsAccount) return [];
    const what =
      platform === 'archive' ? `No archive is imported under the name ${handle}; import it` : `No connected ${platform} account for ${handle}; connect it`;
    return [
      { code: 'no_account', severity: 'error', message: `${what} (platform ${platform}).`, suggested_action: 'connect_account', suggested_endpoint: CONNECT },
    ];
  }
  if (f.account.status !== 'dead') return [];
  const why = f.account.lastProbeError ? `: ${f.account.lastProbeError}` : '';
  return [
    {
      code: 'credential_dead',
      severity: 'error',
      message: `The ${platform} credential of ${handle} failed its last probe (${f.account.lastProbedAt.toISOString()})${why}. Connect the account again with a fresh credential.`,
      suggested_action: 'connect_account',
      suggested_endpoint: CONNECT,
    },
  ];
}

const SIGN_IN = `POST ${API_PREFIX}/accounts/authorizations`;

/** A signed-in account that must be signed in again: refused (not the pipeline's own account, which `accountIssues` reports), or ending within a week. */
export function signInIssues(f: Facts): Array<Issue & { account: AccountRow }> {
  return f.signIns.flatMap((a) => {
    if (a.status === 'dead') {
      if (a.id === f.account?.id) return [];
      const why = a.lastProbeError ? `: ${a.lastProbeError}` : '';
      return [
        {
          account: a,
          code: 'reconnect_account',
          severity: 'error' as const,
          message: `The ${a.platform} account ${a.handle} must be signed in again (its sign-in was refused ${a.lastProbedAt.toISOString()}${why}); nothing is published to it until then.`,
          suggested_action: 'connect_account',
          suggested_endpoint: SIGN_IN,
        },
      ];
    }
    if (!a.reconnectBy) return [];
    const ended = a.reconnectBy <= f.now;
    return [
      {
        account: a,
        code: 'credential_expiring',
        severity: ended ? ('error' as const) : ('warning' as const),
        message: ended
          ? `The ${a.platform} sign-in of ${a.handle} ended ${a.reconnectBy.toISOString()} (the platform gives this app no refresh token); sign in again before publishing to it.`
          : `The ${a.platform} sign-in of ${a.handle} ends ${a.reconnectBy.toISOString()} (the platform gives this app no refresh token); sign in again before then, or publishing to it will fail.`,
        suggested_action: 'connect_account',
        suggested_endpoint: SIGN_IN,
      },
    ];
  });
}

const signInChecks = (f: Facts): Issue[] => signInIssues(f).map(({ account: _account, ...issue }) => issue);

export function ingestIssues(f: Facts): Issue[] {
  const { last, lastGood, count } = f.ingest;
  if (last?.status === 'failed') {
    const credential = last.errorCode === 'credential_missing' || last.errorCode === 'credential_dead';
    return [
      {
        code: 'ingest_failed',
        severity: 'error',
        message: `The latest ingest (run ${last.id}, finished ${last.finishedAt?.toISOString()}) failed: ${runFailure(last)}`,
        suggested_action: credential ? 'connect_account' : 'start_pipeline',
        suggested_endpoint: credential ? CONNECT : FROM_INTENT,
      },
    ];
  }
  if (!lastGood) {
    const what = count ? 'No ingest has succeeded yet; the first one is still queued or running.' : 'The pipeline has never been ingested.';
    return [
      {
        code: 'ingest_never_succeeded',
        severity: 'warning',
        message: what,
        suggested_action: count ? 'fetch_pipeline' : 'start_pipeline',
        suggested_endpoint: count ? pipelineEndpoint(f) : FROM_INTENT,
      },
    ];
  }
  const age = f.now.getTime() - (lastGood.finishedAt ?? lastGood.createdAt).getTime();
  if (age <= STALE_AFTER_MS) return [];
  return [
    {
      code: 'ingest_stale',
      severity: 'warning',
      message: `The last successful ingest finished ${Math.floor(age / HOUR)} hours ago; resume the pipeline (same handle and intent) to ingest again.`,
      suggested_action: 'start_pipeline',
      suggested_endpoint: FROM_INTENT,
    },
  ];
}

export function retryingIssues(f: Facts): Issue[] {
  return f.retrying.map((r) => ({
    code: 'run_retrying',
    severity: 'warning' as const,
    message: `The ${r.kind} run ${r.id} failed on attempt ${r.attempts} (${runFailure(r)}) and will be tried again at ${r.runAfter.toISOString()}.`,
    suggested_action: 'fetch_run',
    suggested_endpoint: `GET ${API_PREFIX}/runs/${r.id}`,
  }));
}

export function stalledIssues(f: Facts): Issue[] {
  const oldest = f.stalled[0];
  if (!oldest) return [];
  const minutes = Math.floor((f.now.getTime() - oldest.runAfter.getTime()) / 60_000);
  return [
    {
      code: 'runs_stalled',
      severity: 'warning',
      message: `${f.stalled.length} run(s) of this pipeline are due but not started; the oldest (${oldest.kind} run ${oldest.id}) has waited ${minutes} minutes. Is the server's job worker running?`,
      suggested_action: 'fetch_pipeline',
      suggested_endpoint: pipelineEndpoint(f),
    },
  ];
}

export function postIssues(f: Facts): Issue[] {
  if (!f.ingest.lastGood || f.postCount > 0) return [];
  return [
    {
      code: 'no_posts',
      severity: 'warning',
      message: `The last ingest succeeded but found no post for ${f.pipeline.handle}; check the handle (start a pipeline with the right one).`,
      suggested_action: 'start_pipeline',
      suggested_endpoint: FROM_INTENT,
    },
  ];
}

/** Posts whose date could not be read: dated at their first ingest, which diagnose says instead of leaving it unsaid. */
export function dateIssues(f: Facts): Issue[] {
  const { count, samples } = f.unreadDates;
  if (!count) return [];
  const shown = samples.map((s) => (s ? JSON.stringify(s) : 'no date at all')).join(', ');
  return [
    {
      code: 'unread_dates',
      severity: 'info',
      message: `${count} post${count === 1 ? '' : 's'} of ${f.pipeline.handle} came with a date that could not be read (${shown}); their published_at is the time of their first ingest, and unread_date on each post has the date as written.`,
      suggested_action: 'list_posts',
      suggested_endpoint: `GET ${API_PREFIX}/pipelines/${f.pipeline.id}/posts`,
    },
  ];
}

export function draftIssues(f: Facts): Issue[] {
  const latest = f.failedDrafts[0];
  if (!latest) return [];
  const writer = latest.run.errorCode === 'writer_failed';
  const postId = latest.artifact?.sourcePostId;
  return [
    {
      code: 'runs_failing',
      severity: 'warning',
      message: `${f.failedDrafts.length} drafting run(s) failed in the last 24 hours; the latest (run ${latest.run.id}): ${runFailure(latest.run)}`,
      suggested_action: writer ? 'configure_writer' : 'draft_post',
      suggested_endpoint: writer || !postId ? diagnoseEndpoint(f) : `POST ${API_PREFIX}/posts/${postId}/draft`,
    },
  ];
}

/** True when the host is written as a non-public address (or is localhost): the outbound client refuses it. */
function localHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  return net.isIP(bare) !== 0 && nonPublicRange(bare) !== null;
}

export function writerIssues(f: Facts): Issue[] {
  if (!f.llm) {
    return [
      {
        code: 'no_writer_configured',
        severity: 'info',
        message:
          'No language-model provider is configured (LLM_BASE_URL); drafts use the built-in writer, which needs no network. Set LLM_BASE_URL, LLM_API_KEY and LLM_MODEL for model-written drafts.',
        suggested_action: 'configure_writer',
        suggested_endpoint: diagnoseEndpoint(f),
      },
    ];
  }
  const url = new URL(f.llm.baseUrl);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (!localHost(url.hostname) || new AllowList(f.allowHosts).has(url.hostname, port)) return [];
  return [
    {
      code: 'writer_blocked',
      severity: 'error',
      message: `The model provider ${url.host} is a local address, which the outbound client refuses: add ${url.host} to OUTBOUND_ALLOW_HOSTS, or every draft will fail.`,
      suggested_action: 'configure_writer',
      suggested_endpoint: diagnoseEndpoint(f),
    },
  ];
}

export function deliveryIssues(f: Facts): Issue[] {
  const latest = f.deliveries[0];
  if (!latest) return [];
  let target = latest.target;
  try {
    const u = new URL(latest.target);
    target = `${u.origin}${u.pathname}`; // a query may carry a secret
  } catch {
    // keep it as configured
  }
  return [
    {
      code: 'deliveries_failing',
      severity: 'warning',
      message: `${f.deliveries.length} webhook deliveries of this workspace's events failed for good in the last 7 days; the latest to ${target}: ${latest.lastError ?? `HTTP ${latest.lastStatus}`}.`,
      suggested_action: 'check_webhook_receiver',
      suggested_endpoint: `POST ${target}`,
    },
  ];
}

/** What to do about a failed publish: connect the account again when its credential was the cause, else publish again (it resumes). */
export function publishRemedy(a: ArtifactRow): Pick<Issue, 'suggested_action' | 'suggested_endpoint'> {
  return a.publishErrorCode?.startsWith('credential_')
    ? { suggested_action: 'connect_account', suggested_endpoint: CONNECT }
    : { suggested_action: 'publish_artifact', suggested_endpoint: `POST ${API_PREFIX}/artifacts/${a.id}/publish` };
}

export function publishIssues(f: Facts): Issue[] {
  const latest = f.publishFailed[0];
  if (!latest) return [];
  const more = f.publishFailed.length > 1 ? ` (${f.publishFailed.length} artifacts of the pipeline are publish_failed)` : '';
  return [
    {
      code: 'publish_failed',
      severity: 'error',
      message: `Publishing artifact ${latest.id} failed${more}: ${latest.publishErrorCode ?? 'failed'}: ${latest.publishErrorMessage ?? 'no message'} Publishing it again continues from the first part not yet live.`,
      ...publishRemedy(latest),
    },
  ];
}

/** Accessibility is not optional: an unpublished artifact with an image without alt text is a warning. */
export function altTextIssues(f: Facts): Issue[] {
  const found = f.missingAltText;
  if (!found.length) return [];
  const shown = found.slice(0, 10).map((a) => a.id);
  return [
    {
      code: 'media_missing_alt_text',
      severity: 'warning',
      message: `${found.length} unpublished artifact${found.length === 1 ? ' has' : 's have'} images without alt text (${shown.join(', ')}${found.length > shown.length ? ', …' : ''}); people who use a screen reader cannot know what they show.`,
      suggested_action: 'set_alt_text',
      suggested_endpoint: `PUT ${API_PREFIX}/artifacts/${found[0]!.id}/media`,
    },
  ];
}

/** Where the agent sends a variant's text or its own split: `PUT /artifacts/{id}/variants/{platform}`. */
export const variantEndpoint = (v: Pick<PipelineVariantRow, 'artifactId' | 'platform'>) => `PUT ${API_PREFIX}/artifacts/${v.artifactId}/variants/${v.platform}`;

/** Variants that cannot be posted as they are: publishing (or exporting) them would be refused. */
export function variantIssues(f: Facts): Issue[] {
  const issues: Issue[] = [];
  const found = f.unpostable;
  if (found.length) {
    const shown = found.slice(0, 5).map((u) => `${u.variant.artifactId} on ${u.variant.platform}: ${u.reason}`);
    issues.push({
      code: 'variant_unpostable',
      severity: 'warning',
      message: `${found.length} variant${found.length === 1 ? '' : 's'} of the pipeline's artifacts cannot be posted as ${found.length === 1 ? 'it is' : 'they are'} (${shown.join('; ')}${found.length > shown.length ? '; …' : ''}). Send the variant's text or your own split (parts).`,
      suggested_action: 'put_variant',
      suggested_endpoint: variantEndpoint(found[0]!.variant),
    });
  }
  const exportOnly = f.exportOnly;
  if (exportOnly.length) {
    const shown = exportOnly.slice(0, 5).map((e) => `${e.variant.artifactId} (${e.variant.platform})`);
    issues.push({
      code: 'variant_not_published',
      severity: 'info',
      message: `Scheduled artifacts have variants for platforms none of their destinations is on: ${shown.join(', ')}${exportOnly.length > shown.length ? ', …' : ''}. Only the variants of their destinations go out at the scheduled time; connect an account on the others and publish with it as a destination, or post them yourself (their text is in the artifact's variants) and record them with mark-published.`,
      suggested_action: 'fetch_artifact',
      suggested_endpoint: `GET ${API_PREFIX}/artifacts/${exportOnly[0]!.variant.artifactId}`,
    });
  }
  return issues;
}

/**
 * Artifacts drawn from a direct message that ingest retired as a source (stored as public by an
 * older version). Published ones are already public: a person decides whether to delete them
 * upstream (warning). The others cannot be published without confirm_non_public (info).
 */
export function directMessageIssues(f: Facts): Issue[] {
  const published = f.fromDirect.filter((a) => a.state === 'published');
  const waiting = f.fromDirect.filter((a) => a.state !== 'published');
  const list = (rows: ArtifactRow[]) =>
    `${rows
      .slice(0, 10)
      .map((a) => (a.publishedUrl ? `${a.id} (${a.publishedUrl})` : a.id))
      .join(', ')}${rows.length > 10 ? ', …' : ''}`;
  const fetch = (a: ArtifactRow) => ({ suggested_action: 'fetch_artifact', suggested_endpoint: `GET ${API_PREFIX}/artifacts/${a.id}` });
  const issues: Issue[] = [];
  if (published.length) {
    issues.push({
      code: 'direct_message_source',
      severity: 'warning',
      message: `${published.length} published artifact${published.length === 1 ? ' was' : 's were'} drafted from a direct message, stored as a public post before this service read audiences: ${list(published)}. They stay published; decide whether to delete them on the platform.`,
      ...fetch(published[0]!),
    });
  }
  if (waiting.length) {
    issues.push({
      code: 'direct_message_source',
      severity: 'info',
      message: `${waiting.length} unpublished artifact${waiting.length === 1 ? ' is' : 's are'} drawn from a direct message that ingest retired as a source: ${list(waiting)}. Their source_visibility is direct: publishing one needs confirm_non_public, and scheduled ones were unscheduled.`,
      ...fetch(waiting[0]!),
    });
  }
  return issues;
}

const CHECKS = [
  accountIssues,
  signInChecks,
  ingestIssues,
  retryingIssues,
  stalledIssues,
  postIssues,
  dateIssues,
  draftIssues,
  publishIssues,
  variantIssues,
  writerIssues,
  deliveryIssues,
  altTextIssues,
  directMessageIssues,
];
const RANK: Record<Issue['severity'], number> = { error: 0, warning: 1, info: 2 };

export function issuesOf(f: Facts): Issue[] {
  return CHECKS.flatMap((check) => check(f))
    .map((i) => ({ ...i, message: i.message.slice(0, 2000) }))
    .sort((a, b) => RANK[a.severity] - RANK[b.severity]);
}

/** `unhealthy` with any error, `degraded` when the worst is a warning, else `healthy` (info does not count). */
export function diagnoseStatus(issues: Issue[]): S['DiagnoseReport']['status'] {
  if (issues.some((i) => i.severity === 'error')) return 'unhealthy';
  return issues.some((i) => i.severity === 'warning') ? 'degraded' : 'healthy';
}

export async function diagnosePipeline(deps: ServiceDeps, caller: Caller, pipelineId: string): Promise<S['DiagnoseReport']> {
  const f = await pipelineFacts(deps, caller, pipelineId);
  const issues = issuesOf(f);
  return { pipeline_id: f.pipeline.id, status: diagnoseStatus(issues), checked_at: f.now.toISOString(), issues };
}
