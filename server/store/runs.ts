// Runs: the job rows the worker claims, leases, finishes and retries. Every state change is a
// compare-and-set on (status, lockedBy), so that two workers (or a worker and the recovery sweep)
// can never both own a run, and a worker that lost its lease cannot overwrite the result.
import type { Db, Provider } from './database.js';
import type { Prisma } from './generated/sqlite/client.js';
import type { RunRow } from './pipelines.js';

export type { RunRow };

/** A Prisma client or an interactive-transaction client (enough to insert a run). */
export type RunTx = Pick<Db, 'run'>;
/** The transaction that finishes a run, for its hooks (events, and whatever else commits with it). */
export type FinishTx = Prisma.TransactionClient;

export interface NewRun {
  id: string;
  workspaceId: string;
  pipelineId: string | null;
  kind: string;
  input: Record<string, unknown>;
  now: Date;
}

export function insertRun(tx: RunTx, r: NewRun): Promise<RunRow> {
  return tx.run.create({
    data: {
      id: r.id,
      workspaceId: r.workspaceId,
      pipelineId: r.pipelineId,
      kind: r.kind,
      status: 'queued',
      input: JSON.stringify(r.input),
      createdAt: r.now,
      runAfter: r.now,
    },
  });
}

export function findRunById(db: Db, id: string) {
  return db.run.findUnique({ where: { id } });
}

export function findRun(db: Db, workspaceId: string, id: string) {
  return db.run.findFirst({ where: { id, workspaceId } });
}

/** Ids of queued runs that are due, oldest first (candidates; claiming decides). */
async function dueIds(db: Db, provider: Provider, now: Date, limit: number): Promise<string[]> {
  if (provider === 'postgresql') {
    // SKIP LOCKED lets several instances poll at once without waiting on each other's rows; the
    // compare-and-set in claimRuns stays the real guarantee.
    const rows = await db.$queryRaw<Array<{ id: string }>>`
      SELECT "id" FROM "Run" WHERE "status" = 'queued' AND "runAfter" <= ${now}
      ORDER BY "runAfter", "id" LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
    return rows.map((r) => r.id);
  }
  const rows = await db.run.findMany({
    where: { status: 'queued', runAfter: { lte: now } },
    orderBy: [{ runAfter: 'asc' }, { id: 'asc' }],
    take: limit,
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/**
 * Claims up to `limit` due runs for `workerId`: each becomes `running`, counts one more attempt
 * and holds a lease until `lockedUntil`. Returns the claimed rows.
 */
export async function claimRuns(db: Db, provider: Provider, q: { workerId: string; now: Date; lockedUntil: Date; limit: number }): Promise<RunRow[]> {
  if (q.limit <= 0) return [];
  // One compare-and-set for all the candidates (UPDATE … RETURNING): a run another worker took
  // meanwhile is no longer `queued` and is simply not returned.
  const claim = async (tx: Pick<Db, 'run'>, ids: string[]) => {
    if (!ids.length) return [];
    const rows = await tx.run.updateManyAndReturn({
      where: { id: { in: ids }, status: 'queued' },
      data: { status: 'running', lockedBy: q.workerId, lockedUntil: q.lockedUntil, attempts: { increment: 1 }, startedAt: q.now },
    });
    return rows.sort((a, b) => a.runAfter.getTime() - b.runAfter.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  };
  if (provider === 'postgresql') {
    // The row locks of FOR UPDATE hold until the transaction ends, so select and claim in one.
    return db.$transaction(async (tx) => claim(tx, await dueIds(tx as unknown as Db, provider, q.now, q.limit)));
  }
  return claim(db, await dueIds(db, provider, q.now, q.limit));
}

/** Extends the leases of the runs this worker holds. Returns the ids it still holds. */
export async function renewLeases(db: Db, q: { workerId: string; ids: string[]; lockedUntil: Date }): Promise<void> {
  if (!q.ids.length) return;
  await db.run.updateMany({ where: { id: { in: q.ids }, status: 'running', lockedBy: q.workerId }, data: { lockedUntil: q.lockedUntil } });
}

const held = (id: string, workerId: string) => ({ id, status: 'running', lockedBy: workerId });

/**
 * Finishes a run this worker holds (succeeded or failed), then runs `also` in the same
 * transaction (the run's events). Returns false, writing nothing, when the worker no longer
 * holds the run (its lease expired and the run was taken back).
 */
export async function finishRun(
  db: Db,
  q: { id: string; workerId: string; now: Date; status: 'succeeded' | 'failed'; output?: Record<string, unknown> | null; errorCode?: string; errorMessage?: string },
  also?: (tx: FinishTx) => Promise<void>,
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.run.updateMany({
      where: held(q.id, q.workerId),
      data: {
        status: q.status,
        finishedAt: q.now,
        lockedBy: null,
        lockedUntil: null,
        output: q.output ? JSON.stringify(q.output) : null,
        errorCode: q.errorCode ?? null,
        errorMessage: q.errorMessage ?? null,
      },
    });
    if (count !== 1) return false;
    if (also) await also(tx);
    return true;
  });
}

/** Puts a run this worker holds back in the queue, to start again at `runAfter`. */
export async function requeueRun(db: Db, q: { id: string; workerId: string; runAfter: Date; errorCode?: string | null; errorMessage?: string | null }): Promise<boolean> {
  const { count } = await db.run.updateMany({
    where: held(q.id, q.workerId),
    data: { status: 'queued', lockedBy: null, lockedUntil: null, runAfter: q.runAfter, errorCode: q.errorCode ?? null, errorMessage: q.errorMessage ?? null },
  });
  return count === 1;
}

/**
 * Runs whose worker died (still `running`, lease expired): back to `queued` when they have
 * attempts left, otherwise returned so that the caller can fail them. Returns the ids re-queued.
 */
export async function recoverExpired(db: Db, q: { now: Date; maxAttempts: number }): Promise<{ requeued: number; exhausted: RunRow[] }> {
  const expired = { status: 'running', lockedUntil: { lt: q.now } };
  const { count } = await db.run.updateMany({
    where: { ...expired, attempts: { lt: q.maxAttempts } },
    data: { status: 'queued', lockedBy: null, lockedUntil: null, runAfter: q.now },
  });
  const exhausted = await db.run.findMany({ where: { ...expired, attempts: { gte: q.maxAttempts } } });
  return { requeued: count, exhausted };
}

/** Takes over an exhausted, expired run so that it can be failed through `finishRun`. */
export async function adoptExpired(db: Db, q: { id: string; workerId: string; now: Date; lockedUntil: Date }): Promise<boolean> {
  const { count } = await db.run.updateMany({
    where: { id: q.id, status: 'running', lockedUntil: { lt: q.now } },
    data: { lockedBy: q.workerId, lockedUntil: q.lockedUntil },
  });
  return count === 1;
}

/** Gives back the runs this worker holds (at shutdown), so that another worker starts them at once. */
export async function releaseRuns(db: Db, q: { workerId: string; ids: string[]; now: Date }): Promise<void> {
  if (!q.ids.length) return;
  await db.run.updateMany({
    where: { id: { in: q.ids }, status: 'running', lockedBy: q.workerId },
    data: { status: 'queued', lockedBy: null, lockedUntil: null, runAfter: q.now, attempts: { decrement: 1 } },
  });
}

/** Records how far a running run is (`done` of `total` items), while this worker holds it. */
export async function setRunProgress(db: Db, q: { id: string; done: number; total: number }): Promise<void> {
  await db.run.updateMany({ where: { id: q.id, status: 'running' }, data: { progressDone: q.done, progressTotal: q.total } });
}
