// The parts of an artifact that are live at each of its destinations (one per post of a thread), and the
// artifact moves of publishing (each a compare-and-set, so that a publish run that lost the
// artifact to an unschedule or a reschedule cannot move it).
import type { Updateable } from 'kysely';
import { first, type DB, type Db, type Row } from './database.js';
import { precompiled } from './precompiled.js';
import type { ArtifactRow } from './artifacts.js';

export type PublishedPartRow = Row<'PublishedPart'>;

const partsOf = precompiled((db, artifactId: string) =>
  db.selectFrom('PublishedPart').selectAll().where('artifactId', '=', artifactId).orderBy('destination').orderBy('position'),
);

/** Every part of the artifact, at every destination (by destination, then in order). */
export function listParts(db: Db, artifactId: string): Promise<PublishedPartRow[]> {
  return partsOf(db, artifactId);
}

/** The parts live at one destination, in order. */
export function listPartsAt(db: Db, artifactId: string, destination: string): Promise<PublishedPartRow[]> {
  return db.selectFrom('PublishedPart').selectAll().where('artifactId', '=', artifactId).where('destination', '=', destination).orderBy('position').execute();
}

export function listPartsOf(db: Db, artifactIds: string[]): Promise<PublishedPartRow[]> {
  if (!artifactIds.length) return Promise.resolve([]);
  return db
    .selectFrom('PublishedPart')
    .selectAll()
    .where('artifactId', 'in', artifactIds)
    .orderBy('artifactId')
    .orderBy('destination')
    .orderBy('position')
    .execute();
}

/** Records a part as soon as it is live; a part already recorded stays as it was. */
export async function recordPart(db: Db, p: PublishedPartRow): Promise<void> {
  await db
    .insertInto('PublishedPart')
    .values(p)
    .onConflict((oc) => oc.columns(['artifactId', 'destination', 'position']).doNothing())
    .execute();
}

const clearedError = { publishErrorCode: null, publishErrorMessage: null } as const;
const clearedSchedule = { scheduledAt: null, scheduledLocal: null, scheduledZone: null } as const;

/**
 * An artifact move: `set` applied where every `where` holds (a compare-and-set); the new row, or null.
 * No move clears `publishRunId`: an artifact without one was never handed to a publish run and has
 * no published parts, which GET /artifacts/{id} relies on to skip reading them (services/artifacts.ts viewOf).
 */
function move(
  db: Db,
  where: Partial<Record<'id' | 'workspaceId' | 'publishRunId', string>> & { states: string[]; approved?: true },
  set: Updateable<DB['Artifact']>,
): Promise<ArtifactRow | null> {
  let q = db.updateTable('Artifact').set(set).where('state', 'in', where.states);
  for (const k of ['id', 'workspaceId', 'publishRunId'] as const) if (where[k] !== undefined) q = q.where(k, '=', where[k]);
  if (where.approved) q = q.where('approvedAt', 'is not', null);
  return first(q.returningAll());
}

/**
 * Hands the artifact to the publish run `runId`: `publishing` now, or `scheduled` for `at`.
 * Only from one of `from` (compare-and-set); null when the state changed meanwhile.
 */
export function assignPublishRun(
  tx: Db,
  q: {
    id: string;
    workspaceId: string;
    from: string[];
    runId: string;
    now: Date;
    schedule: { at: Date; localTime: string | null; timeZone: string | null } | null;
    currentRunId: string | null;
    /** The approval the publish gives (a caller holding `approve`), recorded in the same move. */
    approve?: { at: Date; by: string } | null;
    /** Only while the artifact is approved (the approval gate; an edit may withdraw it meanwhile). */
    requireApproved?: boolean;
  },
): Promise<ArtifactRow | null> {
  const schedule = q.schedule ? { scheduledAt: q.schedule.at, scheduledLocal: q.schedule.localTime, scheduledZone: q.schedule.timeZone } : clearedSchedule;
  // The run it had, too: of two reschedules racing from the same `scheduled`, only one wins.
  const owner = q.currentRunId ? { publishRunId: q.currentRunId } : {};
  const approved = q.requireApproved ? { approved: true as const } : {};
  const approval = q.approve ? { approvedAt: q.approve.at, approvedBy: q.approve.by } : {};
  return move(
    tx,
    { id: q.id, workspaceId: q.workspaceId, states: q.from, ...owner, ...approved },
    { state: q.schedule ? 'scheduled' : 'publishing', publishRunId: q.runId, updatedAt: q.now, ...schedule, ...clearedError, ...approval },
  );
}

/** The run takes its artifact (scheduled → publishing), if the artifact is still its own. */
export function startPublishing(db: Db, q: { id: string; runId: string; now: Date }): Promise<ArtifactRow | null> {
  return move(db, { id: q.id, publishRunId: q.runId, states: ['scheduled', 'publishing'] }, { state: 'publishing', updatedAt: q.now, ...clearedSchedule });
}

/** publishing → published (or publish_failed with the error), if the artifact is still the run's. */
export function endPublishing(
  tx: Db,
  q: { id: string; runId: string; now: Date } & ({ ok: true; url: string | null } | { ok: false; code: string; message: string }),
): Promise<ArtifactRow | null> {
  const set = q.ok
    ? { state: 'published', publishedAt: q.now, publishedUrl: q.url, ...clearedError }
    : { state: 'publish_failed', publishErrorCode: q.code.slice(0, 64), publishErrorMessage: q.message.slice(0, 2000) };
  return move(tx, { id: q.id, publishRunId: q.runId, states: ['scheduled', 'publishing'] }, { ...set, ...clearedSchedule, updatedAt: q.now });
}

/** scheduled → ready (unscheduled); null when the artifact was not scheduled any more. */
export function unschedule(tx: Db, q: { id: string; workspaceId: string; now: Date }): Promise<ArtifactRow | null> {
  return move(tx, { id: q.id, workspaceId: q.workspaceId, states: ['scheduled'] }, { state: 'ready', updatedAt: q.now, ...clearedSchedule });
}

/** scheduled | publish_failed → discarded (the schedule cleared); null when the artifact was in neither state any more. */
export function discardPublishing(
  tx: Db,
  q: { id: string; workspaceId: string; from: Array<'scheduled' | 'publish_failed'>; runId: string | null; now: Date },
): Promise<ArtifactRow | null> {
  // The run it had, too: a reschedule that won meanwhile queued another run, which this would not cancel.
  const owner = q.runId ? { publishRunId: q.runId } : {};
  return move(tx, { id: q.id, workspaceId: q.workspaceId, states: q.from, ...owner }, { state: 'discarded', updatedAt: q.now, ...clearedSchedule });
}

/** A pipeline's scheduled artifacts, soonest first (then by id); with `until`, only those due by then; with `after`, those past that position. */
export function listScheduled(
  db: Db,
  q: { workspaceId: string; pipelineId: string; limit: number; until?: Date; after?: { scheduledAt: Date; id: string } | null },
): Promise<ArtifactRow[]> {
  let query = db
    .selectFrom('Artifact')
    .selectAll()
    .where('workspaceId', '=', q.workspaceId)
    .where('pipelineId', '=', q.pipelineId)
    .where('state', '=', 'scheduled');
  if (q.until) query = query.where('scheduledAt', '<=', q.until);
  const after = q.after;
  if (after)
    query = query.where((eb) =>
      eb.or([eb('scheduledAt', '>', after.scheduledAt), eb.and([eb('scheduledAt', '=', after.scheduledAt), eb('id', '>', after.id)])]),
    );
  return query.orderBy('scheduledAt').orderBy('id').limit(q.limit).execute();
}

/** A pipeline's artifacts in `publish_failed` (for the inbox and diagnose), newest first. */
export function listPublishFailed(db: Db, q: { workspaceId: string; pipelineId: string; limit: number }): Promise<ArtifactRow[]> {
  return db
    .selectFrom('Artifact')
    .selectAll()
    .where('workspaceId', '=', q.workspaceId)
    .where('pipelineId', '=', q.pipelineId)
    .where('state', '=', 'publish_failed')
    .orderBy('updatedAt', 'desc')
    .limit(q.limit)
    .execute();
}

export type PublishedPartMediaRow = Row<'PublishedPartMedia'>;

/** The images uploaded for one part at one destination, when they were (recorded before the part is posted). */
export function findPartMedia(db: Db, artifactId: string, destination: string, position: number): Promise<PublishedPartMediaRow | undefined> {
  return db
    .selectFrom('PublishedPartMedia')
    .selectAll()
    .where('artifactId', '=', artifactId)
    .where('destination', '=', destination)
    .where('position', '=', position)
    .executeTakeFirst();
}

/** Records a part's uploaded images; a part already recorded keeps the first record (the one a retry reuses). */
export async function recordPartMedia(db: Db, row: PublishedPartMediaRow): Promise<void> {
  await db
    .insertInto('PublishedPartMedia')
    .values(row)
    .onConflict((oc) => oc.columns(['artifactId', 'destination', 'position']).doNothing())
    .execute();
}
