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
// runs its `work`s side by side in one transaction and resolves each caller with its own result.
// If any `work` fails (or the commit does), the whole transaction is rolled back and every `work`
// of the batch runs again on its own, in a transaction of its own, in the order they came: each caller then gets its own
// result or its own error, and one failing write never costs the others theirs.
//
// Statements per batch, not per change (`batched` below): the hot writes (an idempotency claim,
// a draft's artifact and run, a stored answer) go through a `Batcher`, which writes the items
// that the batch's works ask for at the same moment with one statement for all of them (a
// multi-row INSERT … RETURNING, an UPDATE … FROM (VALUES …)). The works run side by side, so
// they reach each of their writes together, and a batch costs a fixed handful of statements
// (round trips on PostgreSQL, where a batch of creates waited on one round trip per statement per
// create) whatever its size. Outside a batch (a change alone, or one being retried alone) a
// `batched` write is the same statement for one item.
//
// So a `work` must be a pure database change: it may run twice (the first time rolled back), and
// must not do anything outside the transaction that a rollback would not undo (no network, no
// events for the outside, no counters); what follows the commit goes after `groupCommit` returns.
// It must not depend on the order in which the batch's other works run beside it.
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
        coalescers.set(tx, new Coalescer(tx));
        // Side by side, so that their batched writes meet (each waits for the flush of its kind).
        // Every work has ended before the transaction does, failed or not: nothing of the batch
        // still runs on a rolled-back transaction.
        const settled = await Promise.allSettled(batch.map((q) => Promise.resolve().then(() => q.work(tx))));
        const failed = settled.find((r) => r.status === 'rejected');
        if (failed) throw failed.reason;
        return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value);
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

/**
 * A kind of write that the works of one batch make with one statement for all of them (or a fixed
 * few): `run` writes every item and returns each item's result, in the items' order. It runs
 * inside the batch's transaction; if it throws, every item of the flush gets the error (their
 * works fail, and the batch is retried one by one, where each item is written on its own).
 */
export interface Batcher<I, O> {
  run(tx: Db, items: I[]): Promise<O[]>;
}

interface Pending {
  items: unknown[];
  settle: Array<{ resolve: (v: unknown) => void; reject: (err: unknown) => void }>;
}

/**
 * The batched writes of one batch's transaction: what its works ask for until none of them can go
 * further (the microtasks have run out) is written together, kind by kind, then the works go on.
 */
class Coalescer {
  private pending = new Map<Batcher<unknown, unknown>, Pending>();
  private scheduled = false;
  private flushing = false;

  constructor(private readonly tx: Db) {}

  add<I, O>(b: Batcher<I, O>, item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      let p = this.pending.get(b as Batcher<unknown, unknown>);
      if (!p) this.pending.set(b as Batcher<unknown, unknown>, (p = { items: [], settle: [] }));
      p.items.push(item);
      p.settle.push({ resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    // After the microtasks queued now have run: the other works reach their writes of this kind
    // in microtasks (on SQLite every statement completes in them), so a flush sees them all.
    queueMicrotask(() => process.nextTick(() => void this.flush()));
  }

  private async flush() {
    this.scheduled = false;
    this.flushing = true;
    const round = this.pending;
    this.pending = new Map();
    try {
      for (const [b, p] of round) {
        try {
          const out = await b.run(this.tx, p.items);
          p.settle.forEach((s, i) => s.resolve(out[i]));
        } catch (err) {
          for (const s of p.settle) s.reject(err);
        }
      }
    } finally {
      this.flushing = false;
      if (this.pending.size) this.schedule();
    }
  }
}

const coalescers = new WeakMap<Db, Coalescer>();

/**
 * Writes `item` with the batcher: inside a group-commit batch, together with the same kind of
 * write of the batch's other works (one statement for all); anywhere else, on its own, at once.
 */
export function batched<I, O>(tx: Db, b: Batcher<I, O>, item: I): Promise<O> {
  const c = coalescers.get(tx);
  if (c) return c.add(b, item);
  return b.run(tx, [item]).then((out) => out[0]!);
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
  if (!lanes) committers.set(db, (lanes = new Map<Lane, Committer>()));
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
