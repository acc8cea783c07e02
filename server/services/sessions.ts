// The session bridges under /api/sessions: activity rows, adding items (notes, tracked sources,
// artifacts as variants), regenerating a variant (a drafting run that appends a round), and the
// asynchronous refresh of a tracked source (docs/drafting.md, "Sessions").
import { createHash } from 'node:crypto';
import type { components } from '../../generated/api.js';
import { notFound, retryLater, validationFailed } from '../errors.js';
import { startRun } from '../jobs/enqueue.js';
import { JobError, type JobHandler } from '../jobs/registry.js';
import { findArtifact, insertArtifact } from '../store/artifacts.js';
import * as store from '../store/sessions.js';
import * as sources from '../store/sources.js';
import type { Caller, CommitHook, ServiceDeps } from './context.js';
import { newArtifactFor, queueDraftRun, requireWritten } from './drafting.js';
import { recordEvent } from './events.js';
import { fetchUrl } from './fetch/index.js';
import { sourcesOf } from './views.js';

type S = components['schemas'];
type ItemRequest = S['SessionItemRequest'];

const iso = (d: Date) => d.toISOString();
const short = (s: string, n = 120) => ([...s].length > n ? `${[...s].slice(0, n - 1).join('')}…` : s);

export async function listActivity(deps: ServiceDeps, caller: Caller, limit = 20): Promise<S['ActivityList']> {
  const rows = await store.listActivity(deps.db, caller.workspaceId, limit);
  return { data: rows.map((r) => ({ id: r.id, session_id: r.sessionId, kind: r.kind, summary: r.summary, created_at: iso(r.createdAt) })) };
}

function itemView(r: store.SessionItemRow): S['SessionItem'] {
  return {
    id: r.id,
    session_id: r.sessionId,
    kind: r.kind as S['SessionItem']['kind'],
    text: r.text,
    url: r.url,
    artifact_id: r.artifactId,
    source_id: r.sourceId,
    created_at: iso(r.createdAt),
  };
}

/** The one field each kind carries; the others must be absent. */
const FIELD_OF = { note: 'text', source: 'url', artifact: 'artifact_id' } as const;

function checkFields(body: ItemRequest): void {
  const own = FIELD_OF[body.kind];
  if (body[own] === undefined) throw validationFailed(`body.${own}`, `is required for a ${body.kind} item.`);
  for (const field of Object.values(FIELD_OF)) {
    if (field !== own && body[field] !== undefined) throw validationFailed(`body.${field}`, `does not belong to a ${body.kind} item.`);
  }
}

/** The activity line for an added item (also written by the contract server's seed). */
export function addedSummary(body: Pick<ItemRequest, 'kind' | 'text' | 'url' | 'artifact_id'>): string {
  if (body.kind === 'note') return `Added a note: ${short(body.text!)}`;
  if (body.kind === 'source') return `Added a source: ${short(body.url!, 200)}`;
  return `Added a variant: artifact ${body.artifact_id}`;
}

export async function addItem(
  deps: ServiceDeps,
  caller: Caller,
  sessionId: string,
  body: ItemRequest,
  onCommit?: CommitHook<S['SessionItem']>,
): Promise<S['SessionItem']> {
  checkFields(body);
  if (body.kind === 'artifact' && !(await findArtifact(deps.db, caller.workspaceId, body.artifact_id!))) {
    throw validationFailed('body.artifact_id', 'names no artifact of your workspace.');
  }
  const now = deps.clock.now();
  const row = await store.addItem(
    deps.db,
    {
      id: deps.ids.id('itm'),
      workspaceId: caller.workspaceId,
      sessionId,
      kind: body.kind,
      text: body.text ?? null,
      url: body.url ?? null,
      artifactId: body.artifact_id ?? null,
      newSourceId: body.kind === 'source' ? deps.ids.id('src') : null,
      now,
    },
    () => ({ id: deps.ids.id('act'), workspaceId: caller.workspaceId, sessionId, kind: 'item_added', summary: addedSummary(body), now }),
    onCommit && ((tx, added) => onCommit(tx, itemView(added))),
  );
  return itemView(row);
}

/** The artifact the next round departs from: the last round's, else the item's own. */
async function latestOfVariant(deps: ServiceDeps, caller: Caller, item: store.SessionItemRow) {
  const last = await store.lastRound(deps.db, item.id);
  const id = last?.artifactId ?? item.artifactId;
  const artifact = id ? await findArtifact(deps.db, caller.workspaceId, id) : null;
  if (!artifact) throw notFound('variant artifact');
  return { next: (last?.round ?? 0) + 1, artifact };
}

export async function regenerateVariant(deps: ServiceDeps, caller: Caller, sessionId: string, variantId: string): Promise<S['VariantRound']> {
  const item = await store.findItem(deps.db, caller.workspaceId, sessionId, variantId);
  if (!item || item.kind !== 'artifact') throw notFound('variant in this session');
  // A concurrent regeneration may take the round number first: read again and retry.
  for (let attempt = 0; attempt < 5; attempt++) {
    const { next, artifact: parent } = await latestOfVariant(deps, caller, item);
    requireWritten(parent);
    const lineage = { workspaceId: caller.workspaceId, pipelineId: parent.pipelineId, sources: sourcesOf(parent), parent, visibility: parent.sourceVisibility };
    const now = deps.clock.now();
    const round = await store.appendRound(deps.db, { id: deps.ids.id('vr'), workspaceId: caller.workspaceId, sessionId, variantId, next, now }, async (tx) => {
      const row = await insertArtifact(tx, newArtifactFor(deps, lineage));
      const run = await queueDraftRun(tx, deps, lineage, 'regenerate_variant', row.id, null);
      const summary = `Regenerated variant ${variantId}: round ${next} (artifact ${row.id})`;
      return {
        runId: run.id,
        artifactId: row.id,
        activity: { id: deps.ids.id('act'), workspaceId: caller.workspaceId, sessionId, kind: 'variant_regenerated', summary, now },
      };
    });
    if (round) {
      deps.jobs.kick();
      return { session_id: sessionId, variant_id: variantId, round: round.round, run_id: round.runId, artifact_id: round.artifactId! };
    }
  }
  throw retryLater('Other regenerations of this variant keep taking the next round; retry in a moment.');
}

export async function refreshSource(deps: ServiceDeps, caller: Caller, sourceId: string): Promise<S['RefreshAccepted']> {
  const source = await sources.findSource(deps.db, caller.workspaceId, sourceId);
  if (!source) throw notFound('source');
  const run = await startRun(deps, { workspaceId: caller.workspaceId, pipelineId: null, kind: 'refresh_source', input: { source_id: source.id } });
  return { source_id: source.id, run_id: run.id };
}

/**
 * The `refresh_source` job: fetch the page as /fetch does in markdown mode, and store a snapshot
 * when its content changed. Upstream trouble comes back from fetchUrl as a 502, which the worker
 * retries unless the page's own answer was final (a 404, a 410, …); a refused URL (422) fails the run.
 */
export const refreshJob: JobHandler = async (ctx) => {
  const { deps, run } = ctx;
  const id = ctx.input.source_id;
  const source = typeof id === 'string' ? await sources.findSource(deps.db, run.workspaceId, id) : null;
  if (!source) throw new JobError('not_found', 'The source of this refresh no longer exists.');
  // The run acts for the workspace that queued it; markdown mode needs no token-bound schema.
  const page = await fetchUrl(deps, { workspaceId: run.workspaceId, tokenId: run.id, scopes: [] }, { url: source.url, mode: 'markdown' });
  const markdown = page.markdown ?? '';
  const contentHash = createHash('sha256')
    .update(`${page.title ?? ''}\n${markdown}`)
    .digest('hex');
  const now = deps.clock.now();
  const snapshot = await sources.recordRefresh(
    deps.db,
    { source, page: { snapshotId: deps.ids.id('snap'), contentHash, title: page.title, markdown, now } },
    async (tx, snap) => {
      const summary = snap ? `Refreshed ${short(source.url, 200)}: changed (snapshot ${snap.id})` : `Refreshed ${short(source.url, 200)}: unchanged`;
      for (const sessionId of await store.sessionsTracking(tx, run.workspaceId, source.id)) {
        await store.insertActivity(tx, { id: deps.ids.id('act'), workspaceId: run.workspaceId, sessionId, kind: 'source_refreshed', summary, now });
      }
      if (snap) await recordEvent(tx, deps, run.workspaceId, 'webpage.ready', { webpage_id: source.id, snapshot_id: snap.id });
    },
  );
  if (snapshot) deps.events.wake();
  return { source_id: source.id, changed: snapshot !== null, snapshot_id: snapshot?.id ?? source.lastSnapshotId, content_hash: contentHash };
};
