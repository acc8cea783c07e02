// The in-process job worker. It polls for due runs (and wakes at once on `kick()`), claims them
// atomically, holds a lease on each while it runs (renewed on a timer), and finishes, retries or
// fails them. Runs left `running` by a dead process (lease expired) are re-queued at start and on
// every sweep, so a restart loses nothing; several instances on one PostgreSQL database share the
// queue safely (claims are compare-and-set; PostgreSQL adds FOR UPDATE SKIP LOCKED).
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { Coalesced } from '../lib/coalesce.js';
import type { ServiceDeps } from '../services/context.js';
import * as store from '../store/runs.js';
import type { RunRow } from '../store/runs.js';
import { JobError, kindsOf, MAX_ATTEMPTS, registeredJob, TransientError, type JobContext, type Lane, type RunFailure } from './registry.js';
import './kinds.js';

export interface WorkerOptions {
  concurrency: number;
  /**
   * Slots of the drafting runs, beside `concurrency` (registry.ts `Lane`). Absent: drafting runs
   * share `concurrency` with every other kind.
   */
  draftConcurrency?: number;
  /** Longest sleep between two looks at the queue (a kick wakes the worker sooner). */
  pollMs: number;
  /** First retry delay after a transient failure; doubles with each attempt. */
  retryBaseMs: number;
  /** How long a claim holds without renewal before the run counts as abandoned. */
  leaseMs: number;
  /** How long `stop()` waits for running jobs before handing them back to the queue. */
  stopGraceMs: number;
}

const MAX_RETRY_DELAY_MS = 10 * 60 * 1000;

interface Active {
  run: RunRow;
  lane: Lane;
  done: Promise<void>;
  controller: AbortController;
}

export class JobWorker {
  readonly id: string;
  private readonly active = new Map<string, Active>();
  private timer: NodeJS.Timeout | null = null;
  private wakeAt = Infinity;
  private leaseTimer: NodeJS.Timeout | null = null;
  private retryTimers = new Set<NodeJS.Timeout>();
  private running = false;
  /** Looks at the queue one at a time; stop() waits for the one under way (it may be claiming runs). */
  private readonly looker = new Coalesced(
    async () => {
      try {
        await this.fill();
      } finally {
        this.schedule(this.opts.pollMs);
      }
    },
    (err) => this.log.error({ err }, 'job worker poll failed'),
  );
  private nextSweepAt = 0;
  /** The lanes kicked since the last look; every lane is looked at on a kick without lane and once per poll interval. */
  private readonly lanesDue = new Set<Lane>();
  private allDue = true;
  private nextFullLookAt = 0;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly log: Logger,
    private readonly opts: WorkerOptions,
  ) {
    this.id = deps.ids.id('wrk');
  }

  async start(): Promise<void> {
    this.running = true;
    await this.sweep();
    this.leaseTimer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.opts.leaseMs / 3)));
    this.leaseTimer.unref();
    this.schedule(0);
  }

  /**
   * Look at the queue now (a run was just queued, or a slot freed up); with `lane`, at that lane's
   * runs only (a burst of drafts would otherwise cost a claim statement of the other lane each).
   */
  kick(lane?: Lane): void {
    if (lane) this.lanesDue.add(lane);
    else this.allDue = true;
    if (this.running) this.schedule(0);
  }

  /** Stops claiming, asks running jobs to stop, waits a little, and hands unfinished runs back. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    // A claim in flight ends first: what it claimed after this point is handed back, not run.
    await this.looker.settled();
    const running = [...this.active.values()];
    for (const a of running) a.controller.abort();
    const grace = new Promise<void>((resolve) => setTimeout(resolve, this.opts.stopGraceMs).unref());
    await Promise.race([Promise.allSettled(running.map((a) => a.done)), grace]);
    const left = [...this.active.keys()];
    if (left.length) {
      this.log.warn({ runs: left }, 'handing unfinished runs back to the queue');
      await store
        .releaseRuns(this.deps.db, { workerId: this.id, ids: left, now: this.deps.clock.now() })
        .catch((err: unknown) => this.log.error({ err }, 'could not release runs'));
    }
  }

  /** Sets the timer to fire in `ms` unless it will already fire sooner. */
  private schedule(ms: number) {
    if (!this.running) return;
    const at = Date.now() + ms;
    if (this.timer && at >= this.wakeAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.wakeAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wakeAt = Infinity;
      this.looker.trigger();
    }, ms);
    this.timer.unref();
  }

  private async fill() {
    if (!this.running) return;
    if (Date.now() >= this.nextSweepAt) await this.sweep();
    const drafting = kindsOf('drafting');
    const lanes: Array<{ lane: Lane; free: number; kinds?: { in: string[] } | { notIn: string[] } }> =
      this.opts.draftConcurrency === undefined
        ? [{ lane: 'default', free: this.opts.concurrency - this.active.size }]
        : [
            { lane: 'drafting', free: this.opts.draftConcurrency - this.activeIn('drafting'), kinds: { in: drafting } },
            { lane: 'default', free: this.opts.concurrency - this.activeIn('default'), kinds: { notIn: drafting } },
          ];
    const full = this.allDue || this.opts.draftConcurrency === undefined || Date.now() >= this.nextFullLookAt;
    if (full) {
      this.allDue = false;
      this.nextFullLookAt = Date.now() + this.opts.pollMs;
    }
    const due = new Set(this.lanesDue);
    this.lanesDue.clear();
    for (const { lane, free, kinds } of lanes) {
      if (free <= 0 || !this.running || !(full || due.has(lane))) continue;
      const now = this.deps.clock.now();
      const runs = await store.claimRuns(this.deps.db, this.deps.provider, {
        workerId: this.id,
        now,
        lockedUntil: new Date(now.getTime() + this.opts.leaseMs),
        limit: free,
        kinds,
      });
      if (!this.running) {
        // Stopped while claiming: the runs go back to the queue for the next worker, at once.
        await store.releaseRuns(this.deps.db, { workerId: this.id, ids: runs.map((r) => r.id), now: this.deps.clock.now() });
        return;
      }
      for (const run of runs) this.launch(run, lane);
    }
  }

  private activeIn(lane: Lane): number {
    let n = 0;
    for (const a of this.active.values()) if (a.lane === lane) n++;
    return n;
  }

  private launch(run: RunRow, lane: Lane) {
    const controller = new AbortController();
    const done = this.execute(run, controller.signal)
      .catch((err: unknown) => this.log.error({ err, runId: run.id }, 'job bookkeeping failed'))
      .finally(() => {
        this.active.delete(run.id);
        this.kick(lane);
      });
    this.active.set(run.id, { run, lane, done, controller });
  }

  /** Re-queues runs whose worker died; fails the ones that have used up their attempts. */
  private async sweep() {
    this.nextSweepAt = Date.now() + this.opts.leaseMs;
    const now = this.deps.clock.now();
    const { requeued, exhausted } = await store.recoverExpired(this.deps.db, { now, maxAttempts: MAX_ATTEMPTS });
    if (requeued) this.log.warn({ requeued }, 're-queued runs abandoned by a stopped worker');
    for (const run of exhausted) {
      const adopted = await store.adoptExpired(this.deps.db, { id: run.id, workerId: this.id, now, lockedUntil: new Date(now.getTime() + this.opts.leaseMs) });
      if (!adopted) continue;
      const ctx = this.context(run, new AbortController().signal);
      await this.fail(ctx, { code: 'abandoned', message: `The run was interrupted ${run.attempts} times and was given up.` });
    }
  }

  private async renew() {
    if (!this.active.size) return;
    const now = this.deps.clock.now();
    try {
      await store.renewLeases(this.deps.db, { workerId: this.id, ids: [...this.active.keys()], lockedUntil: new Date(now.getTime() + this.opts.leaseMs) });
    } catch (err) {
      this.log.error({ err }, 'could not renew run leases');
    }
  }

  private context(run: RunRow, signal: AbortSignal): JobContext {
    let input: Record<string, unknown> = {};
    try {
      input = JSON.parse(run.input) as Record<string, unknown>;
    } catch {
      // a malformed input is the handler's problem to report; it sees {}
    }
    return { deps: this.deps, run, input, log: this.log.child({ runId: run.id, kind: run.kind }), signal };
  }

  private async execute(run: RunRow, signal: AbortSignal) {
    const ctx = this.context(run, signal);
    const job = registeredJob(run.kind);
    if (!job) {
      await this.fail(ctx, { code: 'unknown_kind', message: `No handler for runs of kind ${run.kind} on this server.` });
      return;
    }
    let output: Record<string, unknown> | null;
    try {
      output = (await job.handler(ctx)) ?? null;
    } catch (err) {
      await this.failed(ctx, err);
      return;
    }
    const finished = await store.finishRun(
      this.deps.db,
      this.deps.provider,
      { id: run.id, workerId: this.id, now: this.deps.clock.now(), status: 'succeeded', output },
      job.onSucceeded ? (tx) => job.onSucceeded!(tx, ctx, output) : undefined,
    );
    // Only the run's own hook records events when it finishes well.
    if (finished && job.onSucceeded) this.deps.events.wake();
    else if (!finished) ctx.log.warn('the run was taken back before it finished; its result is dropped');
  }

  /** Decides what a thrown error means for the run: retry later, or fail it. */
  private async failed(ctx: JobContext, err: unknown) {
    if (ctx.signal.aborted) {
      // Shutting down: hand the run back at once, so that the next process starts it without
      // waiting for the lease to expire (the interrupted attempt does not count).
      await store.releaseRuns(this.deps.db, { workerId: this.id, ids: [ctx.run.id], now: this.deps.clock.now() });
      return;
    }
    // Upstream trouble is retried unless the upstream's own answer was final (AppError.retryable).
    const upstream = err instanceof AppError ? err.extras.upstreamStatus : undefined;
    const transient = err instanceof TransientError || (err instanceof AppError && err.retryable);
    if (transient) {
      const failure = {
        code: err instanceof TransientError ? err.code : (err as AppError).code,
        message: (err as Error).message,
        upstreamStatus: err instanceof TransientError ? err.upstreamStatus : (upstream ?? null),
      };
      if (ctx.run.attempts < MAX_ATTEMPTS) return this.retry(ctx, failure, err instanceof TransientError ? err.retryAt : null);
      return this.fail(ctx, failure);
    }
    if (err instanceof JobError) return this.fail(ctx, { code: err.code, message: err.message, upstreamStatus: err.upstreamStatus });
    if (err instanceof AppError) return this.fail(ctx, { code: err.code, message: err.message, upstreamStatus: upstream ?? null });
    ctx.log.error({ err }, 'job failed unexpectedly');
    return this.fail(ctx, { code: 'internal_error', message: 'The run failed unexpectedly; the server log has the details.' });
  }

  private async retry(ctx: JobContext, failure: RunFailure, notBefore: Date | null = null) {
    const backoff = Math.min(MAX_RETRY_DELAY_MS, this.opts.retryBaseMs * 2 ** (ctx.run.attempts - 1));
    // An upstream that said when to come back (a 429's reset) is asked again no sooner.
    const delay = Math.max(backoff, notBefore ? notBefore.getTime() - this.deps.clock.now().getTime() : 0);
    const runAfter = new Date(this.deps.clock.now().getTime() + delay);
    ctx.log.info({ attempt: ctx.run.attempts, delayMs: delay, code: failure.code }, 'transient failure; the run will be retried');
    // The last transient error stays visible on the queued run until the next attempt.
    await store.requeueRun(this.deps.db, {
      id: ctx.run.id,
      workerId: this.id,
      runAfter,
      errorCode: failure.code,
      errorMessage: failure.message,
      errorUpstreamStatus: failure.upstreamStatus ?? null,
    });
    await registeredJob(ctx.run.kind)
      ?.onRetry?.(ctx, failure, runAfter)
      .catch((err: unknown) => ctx.log.error({ err }, 'the retry hook failed'));
    const t = setTimeout(() => {
      this.retryTimers.delete(t);
      this.kick();
    }, delay + 5);
    t.unref();
    this.retryTimers.add(t);
  }

  private async fail(ctx: JobContext, failure: RunFailure) {
    const job = registeredJob(ctx.run.kind);
    const finished = await store.finishRun(
      this.deps.db,
      this.deps.provider,
      {
        id: ctx.run.id,
        workerId: this.id,
        now: this.deps.clock.now(),
        status: 'failed',
        errorCode: failure.code.slice(0, 64),
        errorMessage: failure.message.slice(0, 2000),
        errorUpstreamStatus: failure.upstreamStatus ?? null,
      },
      job?.onFailed ? (tx) => job.onFailed!(tx, ctx, failure) : undefined,
    );
    if (finished) this.deps.events.wake();
  }
}
