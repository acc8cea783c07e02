// Runs: the job rows the worker claims, leases, finishes and retries. Every state change is a
// compare-and-set on (status, lockedBy), so that two workers (or a worker and the recovery sweep)
// can never both own a run, and a worker that lost its lease cannot overwrite the result.
import { sql, type ExpressionBuilder } from 'kysely';
import { dateValue, first, type DB, type Db, type Provider } from './database.js';
import { batched, groupCommit, type Batcher } from './group-commit.js';
import type { RunRow } from './pipelines.js';

export type { RunRow };

/** The database or a transaction on it (enough to insert a run). */
export type RunTx = Db;
/** The transaction that finishes a run, for its hooks (events, and whatever else commits with it). */
export type FinishTx = Db;

export interface NewRun {
  id: string;
  workspaceId: string;
  pipelineId: string | null;
  kind: string;
  input: Record<string, unknown>;
  now: Date;
  runAfter?: Date;
}

export function insertRun(tx: RunTx, r: NewRun): Promise<RunRow> {
  return batched(tx, insertRuns, r);
}

/** The runs of a group-commit batch (or one alone): one INSERT … RETURNING for all of them. */
const insertRuns: Batcher<NewRun, RunRow> = {
  async run(tx, runs) {
    const rows = await tx
      .insertInto('Run')
      .values(
        runs.map((r) => ({
          id: r.id,
          workspaceId: r.workspaceId,
          pipelineId: r.pipelineId,
          kind: r.kind,
          status: 'queued',
          input: JSON.stringify(r.input),
          createdAt: r.now,
          runAfter: r.runAfter ?? r.now,
        })),
      )
      .returningAll()
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return runs.map((r) => byId.get(r.id)!);
  },
};

export function findRunById(db: Db, id: string): Promise<RunRow | null> {
  return first(db.selectFrom('Run').selectAll().where('id', '=', id));
}

export function findRun(db: Db, workspaceId: string, id: string): Promise<RunRow | null> {
  return first(db.selectFrom('Run').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId));
}

const byQueueOrder = (a: RunRow, b: RunRow) => a.runAfter.getTime() - b.runAfter.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Claims up to `limit` due runs (of `kinds`, when given) for `workerId`: each becomes `running`, counts one more attempt
 * and holds a lease until `lockedUntil`. Returns the claimed rows, oldest first.
 *
 * One statement on both databases: an UPDATE … RETURNING whose candidates are the due runs, oldest
 * first, and which re-checks `status = 'queued'` itself (compare-and-set: a run another worker took
 * meanwhile is simply not returned). On PostgreSQL the candidates are selected FOR UPDATE SKIP
 * LOCKED, so that several instances polling at once do not wait on each other's rows; the row
 * locks hold until the statement's own transaction ends.
 */
export async function claimRuns(
  db: Db,
  provider: Provider,
  q: { workerId: string; now: Date; lockedUntil: Date; limit: number; kinds?: { in: string[] } | { notIn: string[] } },
): Promise<RunRow[]> {
  if (q.limit <= 0) return [];
  const due = (tx: Db) => {
    let select = tx.selectFrom('Run').select('id').where('status', '=', 'queued').where('runAfter', '<=', q.now);
    const k = q.kinds;
    if (k && 'in' in k) select = select.where('kind', 'in', k.in.length ? k.in : ['']);
    else if (k?.notIn.length) select = select.where('kind', 'not in', k.notIn);
    select = select.orderBy('runAfter').orderBy('id').limit(q.limit);
    return provider === 'postgresql' ? select.forUpdate().skipLocked() : select;
  };
  const claimed = (eb: ExpressionBuilder<DB, 'Run'>) => ({
    status: 'running',
    lockedBy: q.workerId,
    lockedUntil: q.lockedUntil,
    attempts: eb('attempts', '+', 1),
    startedAt: q.now,
  });
  if (provider === 'postgresql') {
    // The candidates in a MATERIALIZED CTE, evaluated once (as a plain subquery of the UPDATE,
    // PostgreSQL may run `LIMIT … FOR UPDATE SKIP LOCKED` more than once and claim more runs
    // than the limit: seen, a worker of concurrency 1 running three), then the claim: one
    // statement, one round trip (was BEGIN, SELECT, UPDATE, COMMIT); the row locks hold until it ends.
    const rows = await db
      .with(
        (wb) => wb('due').materialized(),
        () => due(db),
      )
      .updateTable('Run')
      .set(claimed)
      .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
      .where('status', '=', 'queued')
      .returningAll()
      .execute();
    return rows.sort(byQueueOrder);
  }
  // SQLite: one writer at a time; a run taken meanwhile is no longer `queued` and is not returned.
  const ids = (await due(db).execute()).map((r) => r.id);
  if (!ids.length) return [];
  return (await db.updateTable('Run').set(claimed).where('id', 'in', ids).where('status', '=', 'queued').returningAll().execute()).sort(byQueueOrder);
}

/** Extends the leases of the runs this worker holds. */
export async function renewLeases(db: Db, q: { workerId: string; ids: string[]; lockedUntil: Date }): Promise<void> {
  if (!q.ids.length) return;
  await db
    .updateTable('Run')
    .set({ lockedUntil: q.lockedUntil })
    .where('id', 'in', q.ids)
    .where('status', '=', 'running')
    .where('lockedBy', '=', q.workerId)
    .execute();
}

type Finish = {
  id: string;
  workerId: string;
  now: Date;
  status: 'succeeded' | 'failed';
  output?: Record<string, unknown> | null;
  errorCode?: string;
  errorMessage?: string;
  errorUpstreamStatus?: number | null;
};

/**
 * Finishes a run this worker holds (succeeded or failed), then runs `also` in the same
 * transaction (the run's events). Returns false, writing nothing, when the worker no longer
 * holds the run (its lease expired and the run was taken back).
 */
export async function finishRun(db: Db, provider: Provider, q: Finish, also?: (tx: FinishTx) => Promise<void>): Promise<boolean> {
  const finish = async (tx: Db) => {
    if (!(await batched(tx, finishAll, { provider, ...q }))) return false;
    if (also) await also(tx);
    return true;
  };
  // Committed with the other runs finishing at the same time (group-commit.ts; `finish` may run
  // twice, the first time rolled back).
  // Without hooks the compare-and-set is the whole change: no transaction when it is alone.
  return groupCommit(db, 'runs', finish, { bare: !also });
}

/**
 * The compare-and-sets running → finished of a batch's runs, each true when it held: one
 * UPDATE … FROM (VALUES …) … RETURNING on PostgreSQL (one round trip for all), one UPDATE each
 * on SQLite (in process: nothing to save but the statement).
 */
const finishAll: Batcher<Finish & { provider: Provider }, boolean> = {
  async run(tx, items) {
    if (items.length === 1 || items[0]!.provider === 'sqlite') {
      const out: boolean[] = [];
      for (const q of items) {
        const r = await tx
          .updateTable('Run')
          .set({
            status: q.status,
            finishedAt: q.now,
            lockedBy: null,
            lockedUntil: null,
            output: q.output ? JSON.stringify(q.output) : null,
            errorCode: q.errorCode ?? null,
            errorMessage: q.errorMessage ?? null,
            errorUpstreamStatus: q.errorUpstreamStatus ?? null,
          })
          .where('id', '=', q.id)
          .where('status', '=', 'running')
          .where('lockedBy', '=', q.workerId)
          .executeTakeFirst();
        out.push(Number(r.numUpdatedRows) === 1);
      }
      return out;
    }
    const rows = sql.join(
      items.map(
        (q) =>
          sql`(${q.id}, ${q.workerId}, ${q.status}, ${dateValue('postgresql', q.now)}, ${q.output ? JSON.stringify(q.output) : null}, ${q.errorCode ?? null}, ${q.errorMessage ?? null}, CAST(${q.errorUpstreamStatus ?? null} AS INTEGER))`,
      ),
    );
    const { rows: done } = await sql<{ id: string }>`WITH v(id, worker, status, at, output, code, message, upstream) AS (VALUES ${rows})
      UPDATE "Run" SET "status" = v.status, "finishedAt" = v.at, "lockedBy" = NULL, "lockedUntil" = NULL, "output" = v.output,
        "errorCode" = v.code, "errorMessage" = v.message, "errorUpstreamStatus" = v.upstream
      FROM v WHERE "Run"."id" = v.id AND "Run"."status" = 'running' AND "Run"."lockedBy" = v.worker RETURNING "Run"."id"`.execute(tx);
    const held = new Set(done.map((r) => r.id));
    return items.map((q) => held.delete(q.id));
  },
};

/** Puts a run this worker holds back in the queue, to start again at `runAfter`. */
export async function requeueRun(
  db: Db,
  q: { id: string; workerId: string; runAfter: Date; errorCode?: string | null; errorMessage?: string | null; errorUpstreamStatus?: number | null },
): Promise<boolean> {
  const r = await db
    .updateTable('Run')
    .set({
      status: 'queued',
      lockedBy: null,
      lockedUntil: null,
      runAfter: q.runAfter,
      errorCode: q.errorCode ?? null,
      errorMessage: q.errorMessage ?? null,
      errorUpstreamStatus: q.errorUpstreamStatus ?? null,
    })
    .where('id', '=', q.id)
    .where('status', '=', 'running')
    .where('lockedBy', '=', q.workerId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Runs whose worker died (still `running`, lease expired): back to `queued` when they have
 * attempts left, otherwise returned so that the caller can fail them. Returns how many were
 * re-queued and the exhausted rows.
 */
export async function recoverExpired(db: Db, q: { now: Date; maxAttempts: number }): Promise<{ requeued: number; exhausted: RunRow[] }> {
  const r = await db
    .updateTable('Run')
    .set({ status: 'queued', lockedBy: null, lockedUntil: null, runAfter: q.now })
    .where('status', '=', 'running')
    .where('lockedUntil', '<', q.now)
    .where('attempts', '<', q.maxAttempts)
    .executeTakeFirst();
  const exhausted = await db
    .selectFrom('Run')
    .selectAll()
    .where('status', '=', 'running')
    .where('lockedUntil', '<', q.now)
    .where('attempts', '>=', q.maxAttempts)
    .execute();
  return { requeued: Number(r.numUpdatedRows), exhausted };
}

/** Takes over an exhausted, expired run so that it can be failed through `finishRun`. */
export async function adoptExpired(db: Db, q: { id: string; workerId: string; now: Date; lockedUntil: Date }): Promise<boolean> {
  const r = await db
    .updateTable('Run')
    .set({ lockedBy: q.workerId, lockedUntil: q.lockedUntil })
    .where('id', '=', q.id)
    .where('status', '=', 'running')
    .where('lockedUntil', '<', q.now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Gives back the runs this worker holds (at shutdown), so that another worker starts them at once. */
export async function releaseRuns(db: Db, q: { workerId: string; ids: string[]; now: Date }): Promise<void> {
  if (!q.ids.length) return;
  await db
    .updateTable('Run')
    .set((eb) => ({ status: 'queued', lockedBy: null, lockedUntil: null, runAfter: q.now, attempts: eb('attempts', '-', 1) }))
    .where('id', 'in', q.ids)
    .where('status', '=', 'running')
    .where('lockedBy', '=', q.workerId)
    .execute();
}

/** Records how far a running run is (`done` of `total` items), while this worker holds it. */
export async function setRunProgress(db: Db, q: { id: string; done: number; total: number }): Promise<void> {
  await db.updateTable('Run').set({ progressDone: q.done, progressTotal: q.total }).where('id', '=', q.id).where('status', '=', 'running').execute();
}

/**
 * Cancels a run that has not started (an unscheduled or rescheduled publish): it ends `failed`
 * with `code`. False when it was no longer queued (a worker took it; its handler sees the change).
 */
export async function cancelQueuedRun(db: Db, q: { id: string; now: Date; code: string; message: string }): Promise<boolean> {
  const r = await db
    .updateTable('Run')
    .set({ status: 'failed', finishedAt: q.now, errorCode: q.code, errorMessage: q.message, errorUpstreamStatus: null })
    .where('id', '=', q.id)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
