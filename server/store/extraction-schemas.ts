// The workspace's own extraction schemas (the built-ins live in code, not here). The definition
// is stored as JSON text so that both providers keep the same column type.
import type { Db } from './database.js';

export type ExtractionSchemaRow = NonNullable<Awaited<ReturnType<Db['extractionSchema']['findFirst']>>>;

export function listExtractionSchemas(db: Db, workspaceId: string) {
  return db.extractionSchema.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } });
}

export function findExtractionSchema(db: Db, workspaceId: string, id: string) {
  return db.extractionSchema.findUnique({ where: { workspaceId_id: { workspaceId, id } } });
}

export function countExtractionSchemas(db: Db, workspaceId: string) {
  return db.extractionSchema.count({ where: { workspaceId } });
}

/** Creates or replaces; `created` tells which (createdAt of an existing row is kept). */
export async function putExtractionSchema(db: Db, row: { workspaceId: string; id: string; definition: string; now: Date }) {
  const key = { workspaceId_id: { workspaceId: row.workspaceId, id: row.id } };
  const before = await db.extractionSchema.findUnique({ where: key });
  const saved = await db.extractionSchema.upsert({
    where: key,
    create: { workspaceId: row.workspaceId, id: row.id, definition: row.definition, createdAt: row.now },
    update: { definition: row.definition },
  });
  return { row: saved, created: before === null };
}

/** Deletes the row; false when there was none. */
export async function deleteExtractionSchema(db: Db, workspaceId: string, id: string) {
  const deleted = await db.extractionSchema.deleteMany({ where: { workspaceId, id } });
  return deleted.count > 0;
}
