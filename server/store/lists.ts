// The workspace-wide lists (pipelines, artifacts, accounts, imports, runs, the calendar): keyset
// pages. Each list is ordered by a key that never changes once a row exists ((created_at, id)
// newest first; the calendar (scheduled_at, id) soonest first) and a page starts strictly after
// the last key of the previous one, so a row inserted while a client pages can neither make a row
// skip nor come twice. The row-value comparison `(a, b) < (x, y)` is SQL both databases run on
// the (workspaceId, createdAt, id) indexes. Every query is bound to the workspace.
import type { Db } from './database.js';
import type { AccountRow } from './accounts.js';
import type { ArtifactRow } from './artifacts.js';
import type { ImportRow } from './imports.js';
import type { TokenRow } from './workspaces.js';
import { pipelineCounts, type PipelineRow, type RunRow } from './pipelines.js';

/** Where a page starts: strictly after (newest-first lists: before) this key. */
export interface Position {
  at: Date;
  id: string;
}

interface Page {
  workspaceId: string;
  after: Position | null;
  limit: number;
}

export interface PipelineListRow extends PipelineRow {
  postCount: number;
  artifactCount: number;
  lastRunId: string | null;
}

/** A page of pipelines with their post and artifact counts and the id of their last run (one statement). */
export async function pipelinePage(db: Db, q: Page): Promise<PipelineListRow[]> {
  let query = db
    .selectFrom('Pipeline')
    .selectAll('Pipeline')
    .select(pipelineCounts)
    .select((eb) => [
      eb
        .selectFrom('Run')
        .select('Run.id')
        .whereRef('Run.pipelineId', '=', 'Pipeline.id')
        .orderBy('Run.createdAt', 'desc')
        .orderBy('Run.id', 'desc')
        .limit(1)
        .as('lastRunId'),
    ])
    .where('Pipeline.workspaceId', '=', q.workspaceId);
  const after = q.after;
  if (after) query = query.where((eb) => eb(eb.refTuple('Pipeline.createdAt', 'Pipeline.id'), '<', eb.tuple(after.at, after.id)));
  const rows = await query.orderBy('Pipeline.createdAt', 'desc').orderBy('Pipeline.id', 'desc').limit(q.limit).execute();
  return rows.map((r) => ({ ...r, postCount: Number(r.postCount ?? 0), artifactCount: Number(r.artifactCount ?? 0), lastRunId: r.lastRunId ?? null }));
}

/** Runs by id, within the workspace. */
export function runsByIds(db: Db, workspaceId: string, ids: string[]): Promise<RunRow[]> {
  if (!ids.length) return Promise.resolve([]);
  return db.selectFrom('Run').selectAll().where('workspaceId', '=', workspaceId).where('id', 'in', ids).execute();
}

export interface ArtifactFilter {
  pipelineId?: string;
  states?: string[];
  scheduledAfter?: Date;
  scheduledBefore?: Date;
  updatedSince?: Date;
  /** With this destination (ArtifactDestination.destination) among its destinations. */
  destination?: string;
}

export async function artifactPage(db: Db, q: Page & ArtifactFilter): Promise<ArtifactRow[]> {
  let query = db.selectFrom('Artifact').selectAll().where('workspaceId', '=', q.workspaceId);
  if (q.pipelineId !== undefined) query = query.where('pipelineId', '=', q.pipelineId);
  if (q.states?.length) query = query.where('state', 'in', q.states);
  if (q.scheduledAfter) query = query.where('scheduledAt', '>=', q.scheduledAfter);
  if (q.scheduledBefore) query = query.where('scheduledAt', '<', q.scheduledBefore);
  if (q.updatedSince) query = query.where('updatedAt', '>=', q.updatedSince);
  const destination = q.destination;
  if (destination !== undefined)
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('ArtifactDestination')
          .select('ArtifactDestination.artifactId')
          .whereRef('ArtifactDestination.artifactId', '=', 'Artifact.id')
          .where('ArtifactDestination.destination', '=', destination),
      ),
    );
  const after = q.after;
  if (after) query = query.where((eb) => eb(eb.refTuple('createdAt', 'id'), '<', eb.tuple(after.at, after.id)));
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}

/** `scheduled` artifacts due in [from, to), soonest first; `after` is the last (scheduledAt, id) seen. */
export async function calendarPage(db: Db, q: Page & { from: Date; to: Date }): Promise<ArtifactRow[]> {
  let query = db
    .selectFrom('Artifact')
    .selectAll()
    .where('workspaceId', '=', q.workspaceId)
    .where('state', '=', 'scheduled')
    .where('scheduledAt', '>=', q.from)
    .where('scheduledAt', '<', q.to);
  const after = q.after;
  if (after) query = query.where((eb) => eb(eb.refTuple('scheduledAt', 'id'), '>', eb.tuple(after.at, after.id)));
  return query.orderBy('scheduledAt', 'asc').orderBy('id', 'asc').limit(q.limit).execute();
}

/** A page of an artifact's children (re-drafts with it as parentArtifactId), oldest first. */
export async function childrenPage(db: Db, q: Page & { parentId: string }): Promise<ArtifactRow[]> {
  let query = db.selectFrom('Artifact').selectAll().where('parentArtifactId', '=', q.parentId).where('workspaceId', '=', q.workspaceId);
  const after = q.after;
  if (after) query = query.where((eb) => eb(eb.refTuple('createdAt', 'id'), '>', eb.tuple(after.at, after.id)));
  return query.orderBy('createdAt', 'asc').orderBy('id', 'asc').limit(q.limit).execute();
}

export async function accountPage(db: Db, q: Page): Promise<AccountRow[]> {
  let query = db.selectFrom('Account').selectAll().where('workspaceId', '=', q.workspaceId);
  const after = q.after;
  if (after) query = query.where((eb) => eb(eb.refTuple('createdAt', 'id'), '<', eb.tuple(after.at, after.id)));
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}

export async function importPage(db: Db, q: Page): Promise<ImportRow[]> {
  let query = db.selectFrom('Import').selectAll().where('workspaceId', '=', q.workspaceId);
  const after = q.after;
  if (after) query = query.where((eb) => eb(eb.refTuple('createdAt', 'id'), '<', eb.tuple(after.at, after.id)));
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}

/** The workspace's tokens, newest first (revoked ones too: the list says when); with `kind`, of that kind only. */
export async function tokenPage(db: Db, q: Page & { kind?: string }): Promise<TokenRow[]> {
  let query = db.selectFrom('AgentToken').selectAll().where('workspaceId', '=', q.workspaceId);
  if (q.kind !== undefined) query = query.where('kind', '=', q.kind);
  const after = q.after;
  if (after) query = query.where((eb) => eb(eb.refTuple('createdAt', 'id'), '<', eb.tuple(after.at, after.id)));
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}

/** The archive accounts of these handles (an import shows the account that ingests from it). */
export function archiveAccounts(db: Db, workspaceId: string, handles: string[]): Promise<AccountRow[]> {
  if (!handles.length) return Promise.resolve([]);
  return db.selectFrom('Account').selectAll().where('workspaceId', '=', workspaceId).where('platform', '=', 'archive').where('handle', 'in', handles).execute();
}

export interface RunFilter {
  statuses?: string[];
  kinds?: string[];
  pipelineId?: string;
}

export async function runPage(db: Db, q: Page & RunFilter): Promise<RunRow[]> {
  let query = db.selectFrom('Run').selectAll().where('workspaceId', '=', q.workspaceId);
  if (q.statuses?.length) query = query.where('status', 'in', q.statuses);
  if (q.kinds?.length) query = query.where('kind', 'in', q.kinds);
  if (q.pipelineId !== undefined) query = query.where('pipelineId', '=', q.pipelineId);
  const after = q.after;
  if (after) query = query.where((eb) => eb(eb.refTuple('createdAt', 'id'), '<', eb.tuple(after.at, after.id)));
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}
