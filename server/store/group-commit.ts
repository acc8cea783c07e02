// Group commit: the small write transactions of concurrent requests (a draft's artifact and run,
// an idempotency claim, a run's finish) committed together, one transaction and one commit (one
// fsync on SQLite with `synchronous = FULL`, one WAL flush on PostgreSQL) for all of them, instead
// of one each. Measured in issue 12: commits and BEGIN/COMMIT statements were a large part of a
// draft's cost.
//
// How: `groupCommit(db, lane, work)` queues `work` in its lane (below). When no batch of the lane
// is being committed, the queue is taken at the next turn of the event loop (`setImmediate`: what
// arrived in the same tick and the same round of I/O); while one is, what arrives waits and goes
// in the next batch, so that batches grow with the load and an idle server adds no wait beyond
// that one turn. A batch
// runs each `work` in order in one transaction and resolves each caller with its own result.
// If any `work` fails (or the commit does), the whole transaction is rolled back and every `work`
// of the batch runs again on its own, in a transaction of its own, in the order they came: each caller then gets its own
// result or its own error, and one failing write never costs the others theirs.
//
// So a `work` must be a pure database change: it may run twice (the first time rolled back), and
// must not do anything outside the transaction that a rollback would not undo (no network, no
// events for the outside, no counters); what follows the commit goes after `groupCommit` returns.
import { transaction, type Db } from './database.js';

type Work<T> = (tx: Db) => Promise<T>;

interface Queued {
  work: Work<unknown>;
  /** Alone, run without a transaction around it (it is safe without: one statement, or compare-and-sets). */
  bare: boolean;
  resolve: (v: unknown) => void;
  reject: (err: unknown) => void;
}

/** The most changes one transaction takes (a batch keeps the SQLite connection while it runs). */
const MAX_BATCH = 200;

export const groupCommitStats = { batches: 0, changes: 0, fallbacks: 0 };

class Committer {
  private queue: Queued[] = [];
  private busy = false;
  private scheduled = false;

  constructor(private readonly db: Db) {}

  add<T>(work: Work<T>, bare: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, bare, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.busy || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush() {
    if (this.busy || !this.queue.length) return;
    this.busy = true;
    const batch = this.queue.splice(0, MAX_BATCH);
    try {
      await this.commit(batch);
    } finally {
      this.busy = false;
      if (this.queue.length) this.schedule();
    }
  }

  private async commit(batch: Queued[]) {
    groupCommitStats.batches++;
    groupCommitStats.changes += batch.length;
    if (batch.length === 1) return alone(this.db, batch[0]!);
    let results: unknown[];
    try {
      results = await this.db.transaction().execute(async (tx) => {
        const out: unknown[] = [];
        for (const q of batch) out.push(await q.work(tx));
        return out;
      });
    } catch {
      // Rolled back as a whole: each one again on its own, in the order they came (as if they
      // had never been batched), with its own result or error.
      groupCommitStats.fallbacks++;
      for (const q of batch) await alone(this.db, q);
      return;
    }
    batch.forEach((q, i) => q.resolve(results[i]));
  }
}

function alone(db: Db, q: Queued): Promise<void> {
  return (q.bare ? q.work(db) : transaction(db, q.work)).then(q.resolve, q.reject);
}

/**
 * The two streams of changes batched apart, each with its own queue and one batch in flight, so
 * that the drafting runs' writes do not wait behind the requests' (on PostgreSQL they commit side
 * by side on the pool): `requests` claim idempotency keys and reserve drafts (artifacts, runs,
 * their posts' counts, the stored answers); `runs` write drafted artifacts (with the outbox's
 * advisory lock) and finish runs. The rows and locks one stream takes are not waited for by the
 * other, so their batches cannot deadlock each other. Two batches of one stream never run side by
 * side: two batches counting on the same posts in another order could (on PostgreSQL), and a
 * deadlock, detected after a second, would cost both batches a rollback and a retry one by one.
 */
export type Lane = 'requests' | 'runs';

const committers = new WeakMap<Db, Map<Lane, Committer>>();

function committerOf(db: Db, lane: Lane): Committer {
  let lanes = committers.get(db);
  if (!lanes) committers.set(db, (lanes = new Map()));
  let c = lanes.get(lane);
  if (!c) lanes.set(lane, (c = new Committer(db)));
  return c;
}

/**
 * Runs `work` in a transaction committed together with the other changes queued at the same
 * time (see above); inside a transaction already, runs it in that one. With `bare`, a `work`
 * that needs no transaction of its own (a single statement, or compare-and-sets that are safe
 * one statement at a time) runs without one when nothing else is queued with it, so that an
 * idle server does not pay a BEGIN and a COMMIT for it.
 */
export function groupCommit<T>(db: Db, lane: Lane, work: Work<T>, opts: { bare?: boolean } = {}): Promise<T> {
  if (db.isTransaction) return work(db);
  return committerOf(db, lane).add(work, opts.bare ?? false);
}
