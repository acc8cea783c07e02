// Imports of data exports: one row per accepted upload, keyed by (workspace, idempotency key).
import { saveAccount, type AccountRow, type AccountWrite } from './accounts.js';
import { first, transaction, type Db, type Row } from './database.js';

export type ImportRow = Row<'Import'>;

export function findImport(db: Db, workspaceId: string, id: string): Promise<ImportRow | null> {
  return first(db.selectFrom('Import').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId));
}

export function findImportByKey(db: Db, workspaceId: string, key: string): Promise<ImportRow | null> {
  return first(db.selectFrom('Import').selectAll().where('workspaceId', '=', workspaceId).where('idempotencyKey', '=', key));
}

/** The newest ready import of a handle (what an ingest of that archive reads). */
export function latestImport(db: Db, workspaceId: string, handle: string): Promise<ImportRow | null> {
  return first(
    db
      .selectFrom('Import')
      .selectAll()
      .where('workspaceId', '=', workspaceId)
      .where('handle', '=', handle)
      .where('status', '=', 'ready')
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(1),
  );
}

export type NewImport = Omit<ImportRow, 'status'>;

/**
 * In one transaction: inserts the import, marks the handle's earlier imports `superseded`, and adds
 * or rotates the archive account of the handle. Returns the account and the blob ids the
 * superseded imports held (to delete after the commit).
 */
export async function insertImport(db: Db, row: NewImport, account: AccountWrite): Promise<{ superseded: string[]; account: AccountRow }> {
  return transaction(db, async (tx) => {
    const older = await tx
      .selectFrom('Import')
      .select(['id', 'blobId'])
      .where('workspaceId', '=', row.workspaceId)
      .where('handle', '=', row.handle)
      .where('status', '=', 'ready')
      .execute();
    if (older.length) {
      await tx
        .updateTable('Import')
        .set({ status: 'superseded', blobId: null })
        .where(
          'id',
          'in',
          older.map((o) => o.id),
        )
        .execute();
    }
    await tx
      .insertInto('Import')
      .values({ ...row, status: 'ready' })
      .execute();
    const saved = await saveAccount(tx, account);
    return { superseded: older.map((o) => o.blobId).filter((b): b is string => b !== null), account: saved.account };
  });
}
