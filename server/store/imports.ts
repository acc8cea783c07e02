// Imports of data exports: one row per accepted upload, keyed by (workspace, idempotency key).
import type { Db } from './database.js';

export type ImportRow = NonNullable<Awaited<ReturnType<Db['import']['findFirst']>>>;
export type ImportTx = Pick<Db, 'import' | 'account'>;

export function findImport(db: Db, workspaceId: string, id: string) {
  return db.import.findFirst({ where: { id, workspaceId } });
}

export function findImportByKey(db: Db, workspaceId: string, key: string) {
  return db.import.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId, idempotencyKey: key } } });
}

/** The newest ready import of a handle (what an ingest of that archive reads). */
export function latestImport(db: Db, workspaceId: string, handle: string) {
  return db.import.findFirst({ where: { workspaceId, handle, status: 'ready' }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

export type NewImport = Omit<ImportRow, 'status'>;

/**
 * Inserts the import and marks the handle's earlier imports `superseded`, in the caller's
 * transaction; returns the blob ids the superseded imports held (to delete after the commit).
 */
export async function insertImport(tx: ImportTx, row: NewImport): Promise<string[]> {
  const older = await tx.import.findMany({ where: { workspaceId: row.workspaceId, handle: row.handle, status: 'ready' }, select: { id: true, blobId: true } });
  if (older.length) await tx.import.updateMany({ where: { id: { in: older.map((o) => o.id) } }, data: { status: 'superseded', blobId: null } });
  await tx.import.create({ data: { ...row, status: 'ready' } });
  return older.map((o) => o.blobId).filter((b): b is string => b !== null);
}
