// Every collection listable, with the posts list's conventions (services/posts.ts): pages of
// `limit` (default 20, 1..100), signed opaque cursors bound to the list, the workspace and the
// filters (services/cursor.ts: a tampered or foreign one is 400 bad_request), and a keyset order
// that neither skips nor repeats a row while rows are inserted (store/lists.ts).
import { createHash } from 'node:crypto';
import type { components } from '../../generated/api.js';
import { badRequest, notFound, validationFailed } from '../errors.js';
import { findArtifact } from '../store/artifacts.js';
import * as store from '../store/lists.js';
import { listPartsOf } from '../store/published-parts.js';
import { listVariantsOf } from '../store/variants.js';
import type { ArtifactRow } from '../store/artifacts.js';
import { accountView } from './accounts.js';
import type { Caller, ServiceDeps } from './context.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { importView } from './imports.js';
import { tokenView } from './tokens.js';
import { auditView } from './audit.js';
import { auditPage, type AuditFilter } from '../store/audit.js';
import { DEFAULT_PAGE_SIZE } from './posts.js';
import { artifactView, pipelineView, runView } from './views.js';
import { listDestinationsOf } from '../store/destinations.js';

type S = components['schemas'];

/** The widest calendar window, in days (a quarter): a week view, a month, a season. */
export const CALENDAR_MAX_DAYS = 92;

interface PageQuery {
  cursor?: string;
  limit?: number;
}

/**
 * One list's paging: the cursor's scope (list, workspace, a digest of the filters: a cursor is
 * only good for the list and filters that made it), the position it resumes after, and the page
 * cut from `limit + 1` rows (the extra row says whether there is a next page).
 */
function pager(deps: ServiceDeps, caller: Caller, list: string, filters: unknown, q: PageQuery) {
  const digest = createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 16);
  const scope = `${list}:${caller.workspaceId}:${digest}`;
  let after: store.Position | null = null;
  if (q.cursor !== undefined) {
    const pos = decodeCursor(deps.cursorKey, scope, q.cursor);
    const at = new Date(pos.t ?? '');
    if (Number.isNaN(at.getTime()) || typeof pos.i !== 'string') throw badRequest('The cursor is not valid for this list.');
    after = { at, id: pos.i };
  }
  const limit = q.limit ?? DEFAULT_PAGE_SIZE;
  return {
    query: { workspaceId: caller.workspaceId, after, limit: limit + 1 },
    cut<T extends { id: string }>(rows: T[], key: (row: T) => Date): { rows: T[]; next_cursor: string | null } {
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const next_cursor = rows.length > limit && last ? encodeCursor(deps.cursorKey, scope, { t: key(last).toISOString(), i: last.id }) : null;
      return { rows: page, next_cursor };
    },
  };
}

const createdAt = (r: { createdAt: Date }) => r.createdAt;
const byId = <T>(rows: T[], id: (r: T) => string) => new Map(rows.map((r) => [id(r), r]));
/** The sorted, de-duplicated values of a multi-valued filter (the same set is the same cursor scope). */
const setOf = (values: string[] | undefined) => (values?.length ? [...new Set(values)].sort() : undefined);

function instant(field: string, raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined;
  const at = new Date(raw);
  if (Number.isNaN(at.getTime())) throw validationFailed(field, 'must be a date-time with an offset (RFC 3339), e.g. 2026-12-01T09:30:00+01:00');
  // Both databases store years 0001 to 9999 (PostgreSQL has no year 0): the same answer on either.
  if (at.getUTCFullYear() < 1 || at.getUTCFullYear() > 9999) throw validationFailed(field, 'must be between the years 0001 and 9999');
  return at;
}

/** Artifacts as GET /artifacts/{id} shows them: their variants and live parts read in one statement each for the page. */
export async function artifactViews(deps: ServiceDeps, workspaceId: string, rows: ArtifactRow[]): Promise<S['Artifact'][]> {
  const ids = rows.map((r) => r.id);
  const [live, variants, destinations] = await Promise.all([
    ids.length ? listPartsOf(deps.db, ids) : [],
    ids.length ? listVariantsOf(deps.db, workspaceId, ids) : [],
    listDestinationsOf(deps.db, ids),
  ]);
  return rows.map((r) =>
    artifactView(
      r,
      variants.filter((v) => v.artifactId === r.id),
      live.filter((p) => p.artifactId === r.id),
      destinations.filter((d) => d.artifactId === r.id),
    ),
  );
}

export async function listPipelines(deps: ServiceDeps, caller: Caller, q: PageQuery): Promise<S['PipelineList']> {
  const p = pager(deps, caller, 'pipelines', {}, q);
  const { rows, next_cursor } = p.cut(await store.pipelinePage(deps.db, p.query), createdAt);
  const runIds = rows.map((r) => r.lastRunId).filter((id): id is string => id !== null);
  const runs = byId(await store.runsByIds(deps.db, caller.workspaceId, runIds), (r) => r.id);
  const data = rows.map(({ postCount, artifactCount, lastRunId, ...pipeline }) =>
    pipelineView(pipeline, { posts: postCount, artifacts: artifactCount }, (lastRunId && runs.get(lastRunId)) || null),
  );
  return { data, next_cursor };
}

export interface ArtifactListQuery extends PageQuery {
  pipeline_id?: string;
  state?: string[];
  scheduled_after?: string;
  scheduled_before?: string;
  updated_since?: string;
  destination?: string;
}

export async function listArtifacts(deps: ServiceDeps, caller: Caller, q: ArtifactListQuery): Promise<S['ArtifactList']> {
  const filter: store.ArtifactFilter = {
    pipelineId: q.pipeline_id,
    states: setOf(q.state),
    scheduledAfter: instant('query.scheduled_after', q.scheduled_after),
    scheduledBefore: instant('query.scheduled_before', q.scheduled_before),
    updatedSince: instant('query.updated_since', q.updated_since),
    destination: q.destination,
  };
  if (filter.scheduledAfter && filter.scheduledBefore && filter.scheduledBefore < filter.scheduledAfter) {
    throw validationFailed('query.scheduled_before', 'must not be earlier than scheduled_after');
  }
  const p = pager(deps, caller, 'artifacts', filter, q);
  const { rows, next_cursor } = p.cut(await store.artifactPage(deps.db, { ...p.query, ...filter }), createdAt);
  return { data: await artifactViews(deps, caller.workspaceId, rows), next_cursor };
}

/** GET /artifacts/{id}/children: the artifact's re-drafts, oldest first (404 for an artifact not in the workspace). */
export async function listArtifactChildren(deps: ServiceDeps, caller: Caller, id: string, q: PageQuery): Promise<S['ArtifactList']> {
  if (!(await findArtifact(deps.db, caller.workspaceId, id))) throw notFound('artifact');
  const p = pager(deps, caller, 'children', { id }, q);
  const { rows, next_cursor } = p.cut(await store.childrenPage(deps.db, { ...p.query, parentId: id }), createdAt);
  return { data: await artifactViews(deps, caller.workspaceId, rows), next_cursor };
}

export interface CalendarQuery extends PageQuery {
  from: string;
  to: string;
}

export async function getCalendar(deps: ServiceDeps, caller: Caller, q: CalendarQuery): Promise<S['Calendar']> {
  const from = instant('query.from', q.from)!;
  const to = instant('query.to', q.to)!;
  if (to <= from) throw validationFailed('query.to', 'must be after from');
  if (to.getTime() - from.getTime() > CALENDAR_MAX_DAYS * 86_400_000)
    throw validationFailed('query.to', `must be at most ${CALENDAR_MAX_DAYS} days after from`);
  const p = pager(deps, caller, 'calendar', { from, to }, q);
  const { rows, next_cursor } = p.cut(await store.calendarPage(deps.db, { ...p.query, from, to }), (r) => r.scheduledAt!);
  return { from: from.toISOString(), to: to.toISOString(), data: await artifactViews(deps, caller.workspaceId, rows), next_cursor };
}

export async function listAccounts(deps: ServiceDeps, caller: Caller, q: PageQuery): Promise<S['AccountList']> {
  const p = pager(deps, caller, 'accounts', {}, q);
  const { rows, next_cursor } = p.cut(await store.accountPage(deps.db, p.query), createdAt);
  return { data: rows.map(accountView), next_cursor };
}

export async function listImports(deps: ServiceDeps, caller: Caller, q: PageQuery): Promise<S['ImportList']> {
  const p = pager(deps, caller, 'imports', {}, q);
  const { rows, next_cursor } = p.cut(await store.importPage(deps.db, p.query), createdAt);
  const accounts = byId(await store.archiveAccounts(deps.db, caller.workspaceId, [...new Set(rows.map((r) => r.handle))]), (a) => a.handle);
  return {
    data: rows.map((r) => {
      const account = accounts.get(r.handle);
      return importView(r, account ? accountView(account) : null);
    }),
    next_cursor,
  };
}

export async function listTokens(deps: ServiceDeps, caller: Caller, q: PageQuery & { kind?: string }): Promise<S['TokenList']> {
  const filter = q.kind === undefined ? {} : { kind: q.kind };
  const p = pager(deps, caller, 'tokens', filter, q);
  const { rows, next_cursor } = p.cut(await store.tokenPage(deps.db, { ...p.query, ...filter }), createdAt);
  return { data: rows.map(tokenView), next_cursor };
}

export interface RunListQuery extends PageQuery {
  status?: string[];
  kind?: string[];
  pipeline_id?: string;
}

export async function listRuns(deps: ServiceDeps, caller: Caller, q: RunListQuery): Promise<S['RunList']> {
  const filter: store.RunFilter = { statuses: setOf(q.status), kinds: setOf(q.kind), pipelineId: q.pipeline_id };
  const p = pager(deps, caller, 'runs', filter, q);
  const { rows, next_cursor } = p.cut(await store.runPage(deps.db, { ...p.query, ...filter }), createdAt);
  return { data: rows.map(runView), next_cursor };
}

export interface AuditListQuery extends PageQuery {
  subject_id?: string;
  actor_id?: string;
  action?: string;
  created_after?: string;
  created_before?: string;
}

/** GET /audit-events: the record of who did what, newest first, filtered (an artifact's history is subject_id). */
export async function listAuditEvents(deps: ServiceDeps, caller: Caller, q: AuditListQuery): Promise<S['AuditEventList']> {
  const filter: AuditFilter = {
    subjectId: q.subject_id,
    actorId: q.actor_id,
    action: q.action,
    after: instant('query.created_after', q.created_after),
    before: instant('query.created_before', q.created_before),
  };
  if (filter.after && filter.before && filter.before <= filter.after) throw validationFailed('query.created_before', 'must be later than created_after');
  const p = pager(deps, caller, 'audit', filter, q);
  const { rows, next_cursor } = p.cut(
    await auditPage(deps.db, { ...filter, workspaceId: caller.workspaceId, from: p.query.after, limit: p.query.limit }),
    createdAt,
  );
  return { data: rows.map(auditView), next_cursor };
}
