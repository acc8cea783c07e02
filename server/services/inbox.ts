// The inbox: what needs the agent's attention in a pipeline, most urgent first. Anomalies come
// from the same facts as diagnose (a missing or dead credential, a failed ingest, failed drafting
// runs), then drafts in review, drafts approved, then posts without a draft ranked by engagement.
// Computed on each call, a page at a time (a keyset cursor on the order below); item ids are
// stable for the same underlying row.
import type { components } from '../../generated/api.js';
import { API_PREFIX, badRequest } from '../errors.js';
import type { ArtifactRow } from '../store/artifacts.js';
import * as health from '../store/health.js';
import * as inboxStore from '../store/inbox.js';
import type { PostRow } from '../store/posts.js';
import type { Caller, ServiceDeps } from './context.js';
import { accountIssues, ingestIssues, pipelineFacts, publishRemedy, signInIssues, variantEndpoint, type Facts } from './diagnose.js';
import { mediaIssues, mediaOf } from './media-items.js';
import { pipelineDestinations, postDate } from './views.js';
import { decodeCursor, encodeCursor } from './cursor.js';

type S = components['schemas'];
type Item = S['InboxItem'];

export const PRIORITY = {
  credential: 95,
  ingest: 90,
  directMessage: 88,
  signInEnding: 86,
  publishFailed: 85,
  draftFailed: 80,
  variantUnpostable: 75,
  scheduled: 70,
  altText: 70,
  review: 60,
  ready: 55,
  sourceMin: 10,
  sourceMax: 50,
} as const;
/** The default (and largest) page. */
const MAX_ITEMS = 100;
/** How many of the newest posts without a draft are ranked. */
const POSTS_RANKED = 500;

const firstLine = (text: string) => {
  const line =
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? '';
  return [...line].length > 120 ? `${[...line].slice(0, 119).join('')}…` : line;
};

const empty = { artifact_id: null, post_id: null, anomaly: null } as const;

function anomalies(f: Facts): Item[] {
  const items: Item[] = [];
  for (const issue of accountIssues(f)) {
    items.push({
      ...empty,
      id: `flagged_anomaly:${issue.code}:${f.account?.id ?? f.pipeline.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.credential,
      // A handle may be 512 characters; a title at most 300.
      title: (issue.code === 'no_account'
        ? `No ${f.pipeline.platform} account for ${f.pipeline.handle}`
        : `The ${f.pipeline.platform} credential of ${f.pipeline.handle} is dead`
      ).slice(0, 300),
      created_at: (f.account?.lastProbedAt ?? f.pipeline.createdAt).toISOString(),
      anomaly: { code: issue.code, message: issue.message },
      suggested_action: issue.suggested_action,
      suggested_endpoint: issue.suggested_endpoint,
    });
  }
  for (const issue of signInIssues(f)) {
    const a = issue.account;
    const reconnect = issue.code === 'reconnect_account';
    items.push({
      ...empty,
      id: `flagged_anomaly:${issue.code}:${a.id}`,
      kind: 'flagged_anomaly',
      priority: reconnect || issue.severity === 'error' ? PRIORITY.credential : PRIORITY.signInEnding,
      title: (reconnect
        ? `Sign in to ${a.platform} again as ${a.handle}`
        : `The ${a.platform} sign-in of ${a.handle} ends ${a.reconnectBy?.toISOString().slice(0, 10) ?? ''}: sign in again`
      ).slice(0, 300),
      created_at: (reconnect ? a.lastProbedAt : (a.reconnectBy ?? a.updatedAt)).toISOString(),
      anomaly: { code: issue.code, message: issue.message },
      suggested_action: issue.suggested_action,
      suggested_endpoint: issue.suggested_endpoint,
    });
  }
  const failedIngest = ingestIssues(f).find((i) => i.code === 'ingest_failed');
  const last = f.ingest.last;
  if (failedIngest && last) {
    items.push({
      ...empty,
      id: `flagged_anomaly:ingest_failed:${last.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.ingest,
      title: 'The latest ingest failed',
      created_at: (last.finishedAt ?? last.createdAt).toISOString(),
      anomaly: { code: 'ingest_failed', message: `${last.errorCode ?? 'failed'}: ${last.errorMessage ?? ''}`.slice(0, 2000) },
      suggested_action: 'diagnose_pipeline',
      suggested_endpoint: `GET ${API_PREFIX}/pipelines/${f.pipeline.id}/diagnose`,
    });
  }
  for (const { run, artifact } of f.failedDrafts) {
    const postId = artifact?.sourcePostId ?? null;
    items.push({
      id: `flagged_anomaly:draft_failed:${run.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.draftFailed,
      title: 'A drafting run failed',
      created_at: (run.finishedAt ?? run.createdAt).toISOString(),
      artifact_id: artifact?.id ?? null,
      post_id: postId,
      anomaly: { code: 'draft_failed', message: `${run.errorCode ?? 'failed'}: ${run.errorMessage ?? ''}`.slice(0, 2000) },
      suggested_action: postId ? 'draft_post' : 'diagnose_pipeline',
      suggested_endpoint: postId ? `POST ${API_PREFIX}/posts/${postId}/draft` : `GET ${API_PREFIX}/pipelines/${f.pipeline.id}/diagnose`,
    });
  }
  for (const a of f.publishFailed) {
    items.push({
      id: `flagged_anomaly:publish_failed:${a.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.publishFailed,
      title: `Publishing failed: ${firstLine(a.text) || a.id}`,
      created_at: a.updatedAt.toISOString(),
      artifact_id: a.id,
      post_id: a.sourcePostId,
      anomaly: { code: 'publish_failed', message: `${a.publishErrorCode ?? 'failed'}: ${a.publishErrorMessage ?? ''}`.slice(0, 2000) },
      ...publishRemedy(a),
    });
  }
  for (const { variant: v, reason } of f.unpostable) {
    items.push({
      id: `flagged_anomaly:variant_unpostable:${v.artifactId}:${v.platform}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.variantUnpostable,
      title: `Fix the ${v.platform} variant of: ${firstLine(v.artifactText) || v.artifactId}`.slice(0, 300),
      created_at: v.updatedAt.toISOString(),
      artifact_id: v.artifactId,
      post_id: v.sourcePostId,
      anomaly: {
        code: 'variant_unpostable',
        message: `The ${v.platform} variant cannot be posted: ${reason}. Send its text or your own split (parts).`.slice(0, 2000),
      },
      suggested_action: 'put_variant',
      suggested_endpoint: variantEndpoint(v),
    });
  }
  for (const a of f.fromDirect) {
    const published = a.state === 'published';
    items.push({
      id: `flagged_anomaly:direct_message_source:${a.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.directMessage,
      title: `${published ? 'Published' : 'Drafted'} from a direct message: ${firstLine(a.text) || a.id}`.slice(0, 300),
      created_at: a.updatedAt.toISOString(),
      artifact_id: a.id,
      post_id: a.sourcePostId,
      anomaly: {
        code: 'direct_message_source',
        message: published
          ? `The artifact was published (${a.publishedUrl ?? 'no address'}) from a direct message an older version stored as a public post; decide whether to delete it on the platform.`
          : `The artifact draws on a direct message that ingest retired as a source (${a.state}); publishing it needs confirm_non_public.`,
      },
      suggested_action: 'fetch_artifact',
      suggested_endpoint: `GET ${API_PREFIX}/artifacts/${a.id}`,
    });
  }
  for (const a of f.missingAltText) {
    const missing = mediaIssues(mediaOf(a)).length;
    items.push({
      id: `flagged_anomaly:missing_alt_text:${a.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.altText,
      title: `Describe the images of: ${firstLine(a.text) || a.id}`,
      created_at: a.updatedAt.toISOString(),
      artifact_id: a.id,
      post_id: a.sourcePostId,
      anomaly: { code: 'missing_alt_text', message: `${missing} of the artifact's ${mediaOf(a).length} media ${missing === 1 ? 'has' : 'have'} no alt text.` },
      suggested_action: 'set_alt_text',
      suggested_endpoint: `PUT ${API_PREFIX}/artifacts/${a.id}/media`,
    });
  }
  return items;
}

/** Scheduled artifacts due soon: a last look before they go out (`created_at` is the due time). */
function scheduledItems(f: Facts): Item[] {
  return f.dueSoon.map((a) => ({
    ...empty,
    id: `scheduled_publish:${a.id}`,
    kind: 'scheduled_publish' as const,
    priority: PRIORITY.scheduled,
    title: `Publishes at ${a.scheduledAt?.toISOString() ?? '?'}: ${firstLine(a.text) || a.id}`.slice(0, 300),
    created_at: (a.scheduledAt ?? a.updatedAt).toISOString(),
    artifact_id: a.id,
    post_id: a.sourcePostId,
    suggested_action: 'fetch_artifact',
    suggested_endpoint: `GET ${API_PREFIX}/artifacts/${a.id}`,
  }));
}

/** The engagement score that ranks posts: reposts and quotes spread a post further than a like. */
export const engagement = (p: Pick<PostRow, 'likes' | 'reposts' | 'replies' | 'quotes'>) => p.likes + 2 * (p.reposts + p.quotes) + p.replies;

function sourceItems(posts: PostRow[]): Item[] {
  const best = Math.max(0, ...posts.map(engagement));
  const span = PRIORITY.sourceMax - PRIORITY.sourceMin;
  return posts.map((p) => ({
    ...empty,
    id: `source_without_artifact:${p.id}`,
    kind: 'source_without_artifact',
    priority: PRIORITY.sourceMin + (best > 0 ? Math.round((span * engagement(p)) / best) : 0),
    title: `Draft from: ${firstLine(p.text) || p.id}`,
    created_at: postDate(p).at,
    post_id: p.id,
    suggested_action: 'draft_post',
    suggested_endpoint: `POST ${API_PREFIX}/posts/${p.id}/draft`,
  }));
}

/** Within one priority, kinds in this order (a failed publish before a reminder, drafts before posts). */
const KIND_RANK: Record<Item['kind'], number> = { flagged_anomaly: 0, scheduled_publish: 1, draft_in_review: 2, draft_ready: 3, source_without_artifact: 4 };
/** The kinds read oldest (or soonest) first within their priority: the draft waiting longest, the next publish. */
const OLDEST_FIRST = new Set<Item['kind']>(['draft_in_review', 'draft_ready', 'scheduled_publish']);

interface Position {
  priority: number;
  kind: Item['kind'];
  created_at: string;
  id: string;
}

/** The inbox's total order: priority, then kind, then time (each kind its way), then id. */
function compare(a: Position, b: Position): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.kind !== b.kind) return KIND_RANK[a.kind] - KIND_RANK[b.kind];
  if (a.created_at !== b.created_at) return (a.created_at < b.created_at ? -1 : 1) * (OLDEST_FIRST.has(a.kind) ? 1 : -1);
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The drafts of one state, read a page at a time from the database (there may be thousands). */
const DRAFT_POOLS = [
  { kind: 'draft_in_review', state: 'review', priority: PRIORITY.review, action: 'review_artifact', title: 'Review draft' },
  { kind: 'draft_ready', state: 'ready', priority: PRIORITY.ready, action: 'publish_artifact', title: 'Schedule or publish' },
] as const;
/** The states whose drafts wait for a person (counted by destination). */
const WAITING = ['review', 'ready', 'scheduled', 'publish_failed'];

function draftItem(pool: (typeof DRAFT_POOLS)[number], a: ArtifactRow): Item {
  return {
    ...empty,
    id: `${pool.kind}:${a.id}`,
    kind: pool.kind,
    priority: pool.priority,
    title: `${pool.title}: ${firstLine(a.text) || a.id}`.slice(0, 300),
    created_at: a.createdAt.toISOString(),
    artifact_id: a.id,
    post_id: a.sourcePostId,
    suggested_action: pool.action,
    suggested_endpoint: pool.kind === 'draft_ready' ? `POST ${API_PREFIX}/artifacts/${a.id}/publish` : `GET ${API_PREFIX}/artifacts/${a.id}`,
  };
}

function readPosition(deps: ServiceDeps, scope: string, cursor: string | undefined): Position | null {
  if (cursor === undefined) return null;
  const p = decodeCursor(deps.cursorKey, scope, cursor);
  const priority = Number(p.p);
  if (!Number.isInteger(priority) || !(p.k in KIND_RANK) || typeof p.t !== 'string' || typeof p.i !== 'string')
    throw badRequest('The cursor is not valid for this list. Start again without a cursor.');
  return { priority, kind: p.k as Item['kind'], created_at: p.t, id: p.i };
}

/** Where a draft pool starts for a page after `after`: from its start, after a (createdAt, id), or nowhere (all before). */
function poolStart(pool: (typeof DRAFT_POOLS)[number], after: Position | null): { at: Date; id: string } | null | 'none' {
  if (!after) return null;
  const head = compare({ priority: pool.priority, kind: pool.kind, created_at: '', id: '' }, { ...after, created_at: '', id: '' });
  if (head > 0) return null;
  if (head < 0) return 'none';
  return { at: new Date(after.created_at), id: after.id.slice(pool.kind.length + 1) };
}

/** Where the waiting drafts go, most first: their own open destinations, else the pipeline's defaults. */
async function destinationCounts(deps: ServiceDeps, pipeline: Facts['pipeline']): Promise<S['InboxCounts']['by_destination']> {
  const { rows, withoutOwn } = await inboxStore.waitingByDestination(deps.db, pipeline.id, WAITING);
  const counts = new Map<string, S['InboxCounts']['by_destination'][number]>();
  for (const r of rows)
    counts.set(r.destination, {
      destination: r.destination,
      account_id: r.accountId,
      platform: r.platform as S['TargetPlatform'],
      handle: r.handle,
      waiting: r.n,
    });
  if (withoutOwn > 0)
    for (const d of pipelineDestinations(pipeline)) {
      // A default named by platform and handle (a pipeline's own account) is the same destination as a row of that account.
      const same = [...counts.values()].find(
        (c) => (d.account_id !== null && c.account_id === d.account_id) || (c.platform === d.platform && c.handle === d.handle),
      );
      const key = same?.destination ?? d.account_id ?? `${d.platform}:${d.handle}`;
      const c = counts.get(key) ?? { destination: key, account_id: d.account_id, platform: d.platform, handle: d.handle, waiting: 0 };
      counts.set(key, { ...c, waiting: c.waiting + withoutOwn });
    }
  return [...counts.values()].sort((a, b) => b.waiting - a.waiting || (a.destination < b.destination ? -1 : 1)).slice(0, 200);
}

export interface InboxQuery {
  cursor?: string;
  limit?: number;
}

/**
 * A page of the pipeline's inbox (GET /pipelines/{id}/inbox) and its counts over every page. The
 * items other than drafts are few (anomalies, the next day's schedule, the 500 newest posts
 * without a draft) and computed whole; the drafts in review and ready, which may be thousands,
 * are read from the database a page at a time, after the cursor's position in the same order.
 */
export async function pipelineInbox(deps: ServiceDeps, caller: Caller, pipelineId: string, q: InboxQuery = {}): Promise<S['Inbox']> {
  const f = await pipelineFacts(deps, caller, pipelineId);
  const scope = `inbox:${caller.workspaceId}:${f.pipeline.id}`;
  const after = readPosition(deps, scope, q.cursor);
  const limit = q.limit ?? MAX_ITEMS;
  const [posts, byState, byDestination, ...pools] = await Promise.all([
    health.postsWithoutArtifact(deps.db, f.pipeline.id, POSTS_RANKED),
    inboxStore.countByState(deps.db, f.pipeline.id, WAITING),
    destinationCounts(deps, f.pipeline),
    ...DRAFT_POOLS.map(async (pool) => {
      const start = poolStart(pool, after);
      if (start === 'none') return [];
      const rows = await inboxStore.draftsInState(deps.db, { pipelineId: f.pipeline.id, state: pool.state, after: start, limit: limit + 1 });
      return rows.map((a) => draftItem(pool, a));
    }),
  ]);
  const computed = [...anomalies(f), ...scheduledItems(f), ...sourceItems(posts)];
  const candidates = [...computed.filter((i) => !after || compare(i, after) > 0), ...pools.flat()].sort(compare);
  const data = candidates.slice(0, limit);
  const last = data[data.length - 1];
  const next_cursor =
    candidates.length > limit && last ? encodeCursor(deps.cursorKey, scope, { p: String(last.priority), k: last.kind, t: last.created_at, i: last.id }) : null;
  const by_kind: S['InboxCounts']['by_kind'] = {
    flagged_anomaly: 0,
    scheduled_publish: 0,
    draft_in_review: byState.get('review') ?? 0,
    draft_ready: byState.get('ready') ?? 0,
    source_without_artifact: 0,
  };
  for (const i of computed) by_kind[i.kind]++;
  return {
    pipeline_id: f.pipeline.id,
    data,
    next_cursor,
    counts: {
      total: Object.values(by_kind).reduce((a, b) => a + b, 0),
      by_kind,
      by_state: {
        review: byState.get('review') ?? 0,
        ready: byState.get('ready') ?? 0,
        scheduled: byState.get('scheduled') ?? 0,
        publish_failed: byState.get('publish_failed') ?? 0,
      },
      by_destination: byDestination,
    },
  };
}
