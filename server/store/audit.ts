// The record of who did what (AuditEvent): rows are inserted, never changed, and read a page at a
// time newest first, by (createdAt, id) like the other lists (store/lists.ts), bound to the workspace.
import type { Db, Row } from './database.js';
import type { Position } from './lists.js';

export type AuditRow = Row<'AuditEvent'>;

export async function insertAuditEvent(db: Db, row: AuditRow): Promise<void> {
  await db.insertInto('AuditEvent').values(row).execute();
}

export interface AuditFilter {
  subjectId?: string;
  actorId?: string;
  action?: string;
  /** createdAt >= this */
  after?: Date;
  /** createdAt < this */
  before?: Date;
}

/** A page of the workspace's record, newest first, strictly after (older than) `from`. */
export async function auditPage(db: Db, q: AuditFilter & { workspaceId: string; from: Position | null; limit: number }): Promise<AuditRow[]> {
  let query = db.selectFrom('AuditEvent').selectAll().where('workspaceId', '=', q.workspaceId);
  if (q.subjectId !== undefined) query = query.where('subjectId', '=', q.subjectId);
  if (q.actorId !== undefined) query = query.where('actorId', '=', q.actorId);
  if (q.action !== undefined) query = query.where('action', '=', q.action);
  if (q.after) query = query.where('createdAt', '>=', q.after);
  if (q.before) query = query.where('createdAt', '<', q.before);
  const from = q.from;
  if (from) query = query.where((eb) => eb(eb.refTuple('createdAt', 'id'), '<', eb.tuple(from.at, from.id)));
  return query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}
