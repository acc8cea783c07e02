// Platform variants of artifacts: one row per (artifact, platform), with the text and its parts.
import { first, transaction, type Db, type Row } from './database.js';
import { precompiled } from './precompiled.js';
import type { ArtifactRow } from './artifacts.js';

export type VariantRow = Row<'ArtifactVariant'>;

export interface VariantValues {
  platform: string;
  text: string;
  parts: string[];
  numbered: boolean;
  /** drafted | text | parts */
  origin: string;
  problem: string | null;
}

const variantsOf = precompiled((db, workspaceId: string, artifactId: string) =>
  db.selectFrom('ArtifactVariant').selectAll().where('workspaceId', '=', workspaceId).where('artifactId', '=', artifactId).orderBy('platform'),
);

export function listVariants(db: Db, workspaceId: string, artifactId: string): Promise<VariantRow[]> {
  return variantsOf(db, workspaceId, artifactId);
}

export function findVariant(db: Db, workspaceId: string, artifactId: string, platform: string): Promise<VariantRow | null> {
  return first(
    db.selectFrom('ArtifactVariant').selectAll().where('workspaceId', '=', workspaceId).where('artifactId', '=', artifactId).where('platform', '=', platform),
  );
}

const columns = (v: VariantValues) => ({ text: v.text, parts: JSON.stringify(v.parts), numbered: v.numbered ? 1 : 0, origin: v.origin, problem: v.problem });

/**
 * Adds variants to an artifact, inside the caller's transaction (the one that writes its text).
 * A variant that exists already (the agent sent its own meanwhile) is kept.
 */
export async function insertVariants(tx: Db, a: Pick<ArtifactRow, 'id' | 'workspaceId'>, variants: VariantValues[], now: Date): Promise<void> {
  if (!variants.length) return;
  await tx
    .insertInto('ArtifactVariant')
    .values(variants.map((v) => ({ workspaceId: a.workspaceId, artifactId: a.id, platform: v.platform, ...columns(v), createdAt: now, updatedAt: now })))
    .onConflict((oc) => oc.columns(['artifactId', 'platform']).doNothing())
    .execute();
}

/**
 * Creates or replaces one variant, only while the artifact is in one of `states`: the artifact's
 * row is touched first with a compare-and-set on its state (on PostgreSQL that also locks it until
 * the commit, so a publish cannot start between the check and the write). Null when the state
 * did not match; otherwise the row and whether it was created.
 */
export async function putVariant(
  db: Db,
  q: { workspaceId: string; artifactId: string; states: string[]; values: VariantValues; now: Date },
): Promise<{ row: VariantRow; created: boolean; changed: boolean } | null> {
  return transaction(db, async (tx) => {
    const held = await first(
      tx
        .updateTable('Artifact')
        .set({ updatedAt: q.now })
        .where('id', '=', q.artifactId)
        .where('workspaceId', '=', q.workspaceId)
        .where('state', 'in', q.states)
        .returning(['id']),
    );
    if (!held) return null;
    const existing = await findVariant(tx, q.workspaceId, q.artifactId, q.values.platform);
    const set = { ...columns(q.values), updatedAt: q.now };
    const row = existing
      ? await tx
          .updateTable('ArtifactVariant')
          .set(set)
          .where('artifactId', '=', q.artifactId)
          .where('platform', '=', q.values.platform)
          .returningAll()
          .executeTakeFirstOrThrow()
      : await tx
          .insertInto('ArtifactVariant')
          .values({ workspaceId: q.workspaceId, artifactId: q.artifactId, platform: q.values.platform, ...set, createdAt: q.now })
          .returningAll()
          .executeTakeFirstOrThrow();
    const changed = !existing || existing.text !== row.text || existing.parts !== row.parts || Boolean(existing.numbered) !== Boolean(row.numbered);
    return { row, created: !existing, changed };
  });
}

/** The variants of several artifacts of a workspace at once (for lists such as the schedule). */
export function listVariantsOf(db: Db, workspaceId: string, artifactIds: string[]): Promise<VariantRow[]> {
  if (!artifactIds.length) return Promise.resolve([]);
  return db
    .selectFrom('ArtifactVariant')
    .selectAll()
    .where('workspaceId', '=', workspaceId)
    .where('artifactId', 'in', artifactIds)
    .orderBy('artifactId')
    .orderBy('platform')
    .execute();
}

export type PipelineVariantRow = VariantRow & {
  state: string;
  artifactText: string;
  contentWarning: string | null;
  sourcePostId: string | null;
  artifactUpdatedAt: Date;
};

/** The variants of a pipeline's artifacts in `states` (with the artifact's state, text, content warning and source post), newest artifact first. */
export function variantsOfPipeline(db: Db, q: { workspaceId: string; pipelineId: string; states: string[]; limit: number }): Promise<PipelineVariantRow[]> {
  return db
    .selectFrom('ArtifactVariant as v')
    .innerJoin('Artifact as a', 'a.id', 'v.artifactId')
    .selectAll('v')
    .select([
      'a.state as state',
      'a.text as artifactText',
      'a.contentWarning as contentWarning',
      'a.sourcePostId as sourcePostId',
      'a.updatedAt as artifactUpdatedAt',
    ])
    .where('a.workspaceId', '=', q.workspaceId)
    .where('a.pipelineId', '=', q.pipelineId)
    .where('a.state', 'in', q.states)
    .orderBy('a.updatedAt', 'desc')
    .orderBy('v.artifactId')
    .orderBy('v.platform')
    .limit(q.limit)
    .execute();
}
