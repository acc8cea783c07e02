// The job kinds and their handlers. A job is a run row (see store/runs.ts) that the in-process
// worker (worker.ts) claims and hands to the handler registered for its kind (kinds.ts).
import type { Logger } from 'pino';
import type { ServiceDeps } from '../services/context.js';
import type { FinishTx, RunRow } from '../store/runs.js';

export type JobKind = 'ingest' | 'draft' | 'regenerate_variant' | 'refresh_source' | 'publish';

export interface JobContext {
  deps: ServiceDeps;
  run: RunRow;
  /** The run's `input`, parsed. */
  input: Record<string, unknown>;
  log: Logger;
  /** Aborted when the server shuts down; pass it on to long waits where you can. */
  signal: AbortSignal;
}

/**
 * Does the work of one run. A run may be started again from the beginning (a retry, or a
 * restart after its process died), so a handler must be safe to repeat: upsert, do not append.
 * The return value is stored as the run's output (JSON). Throw
 * `TransientError` to retry with backoff (at most MAX_ATTEMPTS attempts in all); a `JobError`
 * fails the run with its code and message; any other error fails it as `internal_error`.
 */
export type JobHandler = (ctx: JobContext) => Promise<Record<string, unknown> | undefined>;

/** A failure that may pass (upstream down, timeout, 429/5xx): the run is retried later. */
export class TransientError extends Error {
  constructor(
    message: string,
    /** The code stored on the run when the last attempt fails too. */
    readonly code = 'backend_unavailable',
    /** The HTTP status the upstream answered, when it answered. */
    readonly upstreamStatus: number | null = null,
    /** Not before this instant: the upstream said when it can be asked again (a 429's reset time). */
    readonly retryAt: Date | null = null,
  ) {
    super(message);
    this.name = 'TransientError';
  }
}

/** A failure that will not pass by retrying: the run fails with this code and message. */
export class JobError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The HTTP status the upstream answered, when the failure came from its answer. */
    readonly upstreamStatus: number | null = null,
  ) {
    super(message);
    this.name = 'JobError';
  }
}

export interface RunFailure {
  code: string;
  message: string;
  /** The HTTP status the upstream answered, when the failure came from its answer. */
  upstreamStatus?: number | null;
}

/**
 * Optional hooks that run inside the transaction that finishes the run, so that the run's final
 * status and the events about it commit together (a consumer that sees the event sees the run
 * finished). The worker wakes the event streams after the commit.
 */
export interface JobHooks {
  onSucceeded?(tx: FinishTx, ctx: JobContext, output: Record<string, unknown> | null): Promise<void>;
  onFailed?(tx: FinishTx, ctx: JobContext, failure: RunFailure): Promise<void>;
  /** After a transient failure, once the run is queued again for `runAfter` (not in a transaction). */
  onRetry?(ctx: JobContext, failure: RunFailure, runAfter: Date): Promise<void>;
}

export const MAX_ATTEMPTS = 5;

/**
 * Which of the worker's slots a kind runs in: `drafting` runs (small: one artifact, a few posts,
 * and a writer call) have `DRAFT_CONCURRENCY` slots of their own, so that a burst of drafts keeps
 * up and never waits behind an ingest or an import; every other kind shares `WORKER_CONCURRENCY`.
 */
export type Lane = 'default' | 'drafting';

interface Registered extends JobHooks {
  handler: JobHandler;
  lane: Lane;
}

const registry = new Map<JobKind, Registered>();

export function registerJob(kind: JobKind, handler: JobHandler, hooks: JobHooks = {}, lane: Lane = 'default'): void {
  registry.set(kind, { handler, lane, ...hooks });
}

/** The kinds registered in `lane`. */
export function kindsOf(lane: Lane): string[] {
  return [...registry].filter(([, r]) => r.lane === lane).map(([kind]) => kind);
}

export function registeredJob(kind: string): Registered | undefined {
  return registry.get(kind as JobKind);
}
