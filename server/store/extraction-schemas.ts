// The workspace's own extraction schemas (the built-ins live in code, not here). The definition
// is stored as JSON text so that both providers keep the same column type.
import { first, type Db, type Row } from './database.js';

export type ExtractionSchemaRow = Row<'ExtractionSchema'>;

export function listExtractionSchemas(db: Db, workspaceId: string): Promise<ExtractionSchemaRow[]> {
  return db.selectFrom('ExtractionSchema').selectAll().where('workspaceId', '=', workspaceId).orderBy('id', 'asc').execute();
}

export function findExtractionSchema(db: Db, workspaceId: string, id: string): Promise<ExtractionSchemaRow | null> {
  return first(db.selectFrom('ExtractionSchema').selectAll().where('workspaceId', '=', workspaceId).where('id', '=', id));
}

export async function countExtractionSchemas(db: Db, workspaceId: string): Promise<number> {
  const r = await db
    .selectFrom('ExtractionSchema')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Creates or replaces; `created` tells which (createdAt of an existing row is kept). */
export async function putExtractionSchema(db: Db, row: { workspaceId: string; id: string; definition: string; now: Date }) {
  const before = await findExtractionSchema(db, row.workspaceId, row.id);
  const saved = await db
    .insertInto('ExtractionSchema')
    .values({ workspaceId: row.workspaceId, id: row.id, definition: row.definition, createdAt: row.now })
    .onConflict((oc) => oc.columns(['workspaceId', 'id']).doUpdateSet({ definition: row.definition }))
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row: saved, created: before === null };
}

/** Deletes the row; false when there was none. */
export async function deleteExtractionSchema(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom('ExtractionSchema').where('workspaceId', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
