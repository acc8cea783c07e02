// Where an artifact is published (issue 23): one ArtifactDestination row per destination chosen
// (an account the service posts with, keyed by its id) or per post made by hand
// (`manual:<platform>`). Each row has its own state, run, error and next attempt; its parts are
// the PublishedPart rows of the same (artifact, destination). Every write that a publish run makes
// is a compare-and-set on the run the row names, so a run that lost the artifact (unscheduled,
// rescheduled, discarded) cannot move its destinations.
import { type Db, type Row } from './database.js';

export type DestinationRow = Row<'ArtifactDestination'>;

export type DestinationState = 'pending' | 'scheduled' | 'publishing' | 'live' | 'failed';

export const MANUAL_PREFIX = 'manual:';

export const isManual = (d: Pick<DestinationRow, 'destination'>) => d.destination.startsWith(MANUAL_PREFIX);

export function listDestinations(db: Db, artifactId: string): Promise<DestinationRow[]> {
  return db.selectFrom('ArtifactDestination').selectAll().where('artifactId', '=', artifactId).orderBy('position').orderBy('destination').execute();
}

export function listDestinationsOf(db: Db, artifactIds: string[]): Promise<DestinationRow[]> {
  if (!artifactIds.length) return Promise.resolve([]);
  return db
    .selectFrom('ArtifactDestination')
    .selectAll()
    .where('artifactId', 'in', artifactIds)
    .orderBy('artifactId')
    .orderBy('position')
    .orderBy('destination')
    .execute();
}

export interface ChosenDestination {
  destination: string;
  accountId: string;
  platform: string;
  handle: string;
}

/**
 * Hands the chosen destinations to the run `runId` (`scheduled` with a time, else `publishing`),
 * in the order given; a destination already live is never touched. The other destinations not
 * live (not chosen this time) are dropped: the caller keeps any that has parts live among the chosen.
 */
export async function assignDestinations(
  tx: Db,
  q: { artifactId: string; workspaceId: string; chosen: ChosenDestination[]; runId: string; state: 'scheduled' | 'publishing'; now: Date },
): Promise<void> {
  const keep = q.chosen.map((c) => c.destination);
  let drop = tx
    .deleteFrom('ArtifactDestination')
    .where('artifactId', '=', q.artifactId)
    .where('state', '!=', 'live')
    .where('destination', 'not like', `${MANUAL_PREFIX}%`);
  if (keep.length) drop = drop.where('destination', 'not in', keep);
  await drop.execute();
  const live = await tx.selectFrom('ArtifactDestination').select('position').where('artifactId', '=', q.artifactId).where('state', '=', 'live').execute();
  const base = live.reduce((m, r) => Math.max(m, r.position + 1), 0);
  for (const [i, c] of q.chosen.entries()) {
    const fresh = { state: q.state, runId: q.runId, errorCode: null, errorMessage: null, nextAttemptAt: null, updatedAt: q.now };
    await tx
      .insertInto('ArtifactDestination')
      .values({ artifactId: q.artifactId, workspaceId: q.workspaceId, ...c, position: base + i, createdAt: q.now, ...fresh })
      .onConflict((oc) => oc.columns(['artifactId', 'destination']).doUpdateSet(fresh).where('ArtifactDestination.state', '!=', 'live'))
      .execute();
  }
}

/** The run's destinations: `scheduled` → `publishing` as the run takes its artifact. */
export async function startDestinations(db: Db, q: { artifactId: string; runId: string; now: Date }): Promise<void> {
  await db
    .updateTable('ArtifactDestination')
    .set({ state: 'publishing', updatedAt: q.now })
    .where('artifactId', '=', q.artifactId)
    .where('runId', '=', q.runId)
    .where('state', '=', 'scheduled')
    .execute();
}

/** One destination's outcome, written by its run (a compare-and-set on the run; a live one stays live). */
export async function setDestination(
  db: Db,
  q: {
    artifactId: string;
    destination: string;
    runId: string;
    now: Date;
    state: 'publishing' | 'live' | 'failed';
    error?: { code: string; message: string } | null;
    url?: string | null;
  },
): Promise<void> {
  const live = q.state === 'live' ? { publishedAt: q.now, url: q.url ?? null, errorCode: null, errorMessage: null, nextAttemptAt: null } : {};
  const error = q.error ? { errorCode: q.error.code.slice(0, 64), errorMessage: q.error.message.slice(0, 2000) } : {};
  await db
    .updateTable('ArtifactDestination')
    .set({ state: q.state, updatedAt: q.now, ...error, ...(q.state === 'failed' ? { nextAttemptAt: null } : {}), ...live })
    .where('artifactId', '=', q.artifactId)
    .where('destination', '=', q.destination)
    .where('runId', '=', q.runId)
    .where('state', '!=', 'live')
    .execute();
}

/** The run will try again at `at`: its destinations still publishing show when. */
export async function setNextAttempt(db: Db, q: { artifactId: string; runId: string; at: Date }): Promise<void> {
  await db
    .updateTable('ArtifactDestination')
    .set({ nextAttemptAt: q.at })
    .where('artifactId', '=', q.artifactId)
    .where('runId', '=', q.runId)
    .where('state', '=', 'publishing')
    .execute();
}

/** The run failed for good: its destinations not live and not failed yet fail with its error. */
export async function failDestinations(db: Db, q: { artifactId: string; runId: string; now: Date; code: string; message: string }): Promise<void> {
  await db
    .updateTable('ArtifactDestination')
    .set({ state: 'failed', errorCode: q.code.slice(0, 64), errorMessage: q.message.slice(0, 2000), nextAttemptAt: null, updatedAt: q.now })
    .where('artifactId', '=', q.artifactId)
    .where('runId', '=', q.runId)
    .where('state', 'in', ['scheduled', 'publishing'])
    .execute();
}

/** Unscheduled or discarded: the schedule's destinations wait (`pending`) for the next publish. */
export async function releaseDestinations(db: Db, q: { artifactId: string; runId: string | null; now: Date }): Promise<void> {
  if (!q.runId) return;
  await db
    .updateTable('ArtifactDestination')
    .set({ state: 'pending', runId: null, nextAttemptAt: null, updatedAt: q.now })
    .where('artifactId', '=', q.artifactId)
    .where('runId', '=', q.runId)
    .where('state', 'in', ['scheduled', 'publishing'])
    .execute();
}

/** A post made by hand: recorded live (again: its address replaced). */
export async function recordManual(
  db: Db,
  q: { artifactId: string; workspaceId: string; platform: string; handle: string | null; url: string; now: Date },
): Promise<void> {
  const last = await db
    .selectFrom('ArtifactDestination')
    .select('position')
    .where('artifactId', '=', q.artifactId)
    .orderBy('position', 'desc')
    .limit(1)
    .executeTakeFirst();
  const set = { url: q.url, handle: q.handle, publishedAt: q.now, updatedAt: q.now, state: 'live' };
  await db
    .insertInto('ArtifactDestination')
    .values({
      artifactId: q.artifactId,
      destination: `${MANUAL_PREFIX}${q.platform}`,
      workspaceId: q.workspaceId,
      accountId: null,
      platform: q.platform,
      position: last ? last.position + 1 : 0,
      createdAt: q.now,
      ...set,
    })
    .onConflict((oc) => oc.columns(['artifactId', 'destination']).doUpdateSet(set))
    .execute();
}
