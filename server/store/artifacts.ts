// Artifacts (drafts) and their state.
import { first, transaction, type Db, type Row } from './database.js';
import { batched, type Batcher } from './group-commit.js';
import { linkUploads } from './media.js';
import { firstOf, precompiled } from './precompiled.js';

export type ArtifactRow = Row<'Artifact'>;

const artifactById = precompiled((db, workspaceId: string, id: string) =>
  db.selectFrom('Artifact').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId),
);

export async function findArtifact(db: Db, workspaceId: string, id: string): Promise<ArtifactRow | null> {
  return firstOf(await artifactById(db, workspaceId, id));
}

export type NewArtifact = Pick<
  ArtifactRow,
  'id' | 'workspaceId' | 'pipelineId' | 'sourcePostId' | 'parentArtifactId' | 'rootArtifactId' | 'generation' | 'text' | 'state' | 'sourceVisibility'
> & {
  ancestors: string[];
  /** A brief's further source posts, after `sourcePostId` (absent or empty for a riff). */
  moreSourcePostIds?: string[];
  /** The media list (JSON) and the uploads it uses (absent: none). */
  media?: { json: string; uploadIds: string[] };
  /** The content warning carried from the sources (absent: none). */
  contentWarning?: string | null;
  now: Date;
};

/** The database or a transaction on it. */
export type ArtifactTx = Db;

/** Creates the artifact and counts it on each of its source posts, in one transaction. */
export async function createArtifact(db: Db, a: NewArtifact): Promise<ArtifactRow> {
  return transaction(db, (tx) => insertArtifact(tx, a));
}

/** `createArtifact` inside the caller's transaction (with the run or the events of the same change). */
export function insertArtifact(tx: ArtifactTx, a: NewArtifact): Promise<ArtifactRow> {
  return batched(tx, insertArtifacts, a);
}

/**
 * The artifacts of a group-commit batch (or one alone): one INSERT … RETURNING for all of them,
 * one UPDATE of their source posts' counts per distinct increment (a burst of drafts of one post
 * is one UPDATE adding their number), and the uploads they use.
 */
const insertArtifacts: Batcher<NewArtifact, ArtifactRow> = {
  async run(tx, items) {
    const rows = await tx
      .insertInto('Artifact')
      .values(
        items.map((a) => ({
          id: a.id,
          workspaceId: a.workspaceId,
          pipelineId: a.pipelineId,
          sourcePostId: a.sourcePostId,
          parentArtifactId: a.parentArtifactId,
          rootArtifactId: a.rootArtifactId,
          generation: a.generation,
          ancestors: JSON.stringify(a.ancestors),
          sourcePostIds: JSON.stringify(sourcesOf(a)),
          text: a.text,
          state: a.state,
          sourceVisibility: a.sourceVisibility,
          contentWarning: a.contentWarning ?? null,
          media: a.media?.json ?? '[]',
          createdAt: a.now,
          updatedAt: a.now,
        })),
      )
      .returningAll()
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    // Each post counted once per artifact drafted from it; the posts grouped by how many.
    const counts = new Map<string, { n: number; now: Date }>();
    for (const a of items) {
      for (const id of sourcesOf(a)) {
        const c = counts.get(id);
        if (c) c.n++;
        else counts.set(id, { n: 1, now: a.now });
      }
    }
    const byIncrement = new Map<number, { ids: string[]; now: Date }>();
    for (const [id, { n, now }] of counts) {
      const g = byIncrement.get(n);
      if (g) g.ids.push(id);
      else byIncrement.set(n, { ids: [id], now });
    }
    for (const [n, { ids, now }] of byIncrement) {
      await tx
        .updateTable('SourcePost')
        .set((eb) => ({ artifactCount: eb('artifactCount', '+', n), updatedAt: now }))
        .where('id', 'in', ids)
        .execute();
    }
    const out = items.map((a) => byId.get(a.id)!);
    for (const [i, a] of items.entries()) if (a.media) await linkUploads(tx, out[i]!, a.media.uploadIds);
    return out;
  },
};

/** The posts an artifact is drafted from, the first one first. */
const sourcesOf = (a: NewArtifact) => [a.sourcePostId, ...(a.moreSourcePostIds ?? [])];

/**
 * Moves an artifact from one of `from` to `to`, only if it is still in one of `from` (a compare
 * and set, so that two concurrent moves cannot both win). Returns the new row, or null when the
 * state had changed.
 */
export async function transitionArtifact(
  db: Db,
  q: {
    id: string;
    workspaceId: string;
    from: string[];
    to: string;
    now: Date;
    publishedUrl?: string | null;
    /** Who approved and when (the move to `ready`); null withdraws the approval (a reopen); absent keeps it. */
    approval?: { at: Date; by: string } | null;
  },
): Promise<ArtifactRow | null> {
  const published = q.to === 'published' ? { publishedAt: q.now, publishedUrl: q.publishedUrl ?? null } : {};
  const approval = q.approval === undefined ? {} : { approvedAt: q.approval?.at ?? null, approvedBy: q.approval?.by ?? null };
  return first(
    db
      .updateTable('Artifact')
      .set({ state: q.to, updatedAt: q.now, ...published, ...approval })
      .where('id', '=', q.id)
      .where('workspaceId', '=', q.workspaceId)
      .where('state', 'in', q.from)
      .returningAll(),
  );
}

/**
 * Withdraws the artifact's approval (a change to what will be posted, by a caller who cannot
 * approve): `approvedAt`/`approvedBy` cleared, and a `ready` artifact back to `review`.
 */
export async function withdrawApproval(tx: Db, q: { id: string; workspaceId: string; now: Date }): Promise<void> {
  const mine = tx.updateTable('Artifact').where('id', '=', q.id).where('workspaceId', '=', q.workspaceId);
  await mine.set({ approvedAt: null, approvedBy: null, updatedAt: q.now }).execute();
  await mine.set({ state: 'review' }).where('state', '=', 'ready').execute();
}
