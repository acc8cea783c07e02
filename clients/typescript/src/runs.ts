// Following a run of long-running work to its end by polling `GET /runs/{id}`.
import { unwrap, type ApiClient, type Schemas } from './client.js';

export type Run = Schemas['Run'];

export interface WaitOptions {
  /** First poll interval (default 500 ms); it grows by half each poll up to `maxIntervalMs`. */
  intervalMs?: number;
  /** Longest poll interval (default 5000 ms). */
  maxIntervalMs?: number;
  /** Give up after this long (default: never). */
  timeoutMs?: number;
  /** Called with the run after every poll. */
  onProgress?: (run: Run) => void;
  signal?: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export const isFinished = (run: Run) => run.status === 'succeeded' || run.status === 'failed';

/** Thrown when `timeoutMs` passes before the run finished; `run` is the last state seen. */
export class RunTimeoutError extends Error {
  constructor(readonly run: Run) {
    super(`Run ${run.run_id} is still ${run.status}; stopped waiting.`);
    this.name = 'RunTimeoutError';
  }
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls the run until it `succeeded` or `failed` and returns it (a failed run is returned, not thrown). */
export async function waitForRun(client: ApiClient, runId: string, opts: WaitOptions = {}): Promise<Run> {
  const sleep = opts.sleep ?? defaultSleep;
  const now = opts.now ?? Date.now;
  const deadline = opts.timeoutMs === undefined ? Infinity : now() + opts.timeoutMs;
  let interval = opts.intervalMs ?? 500;
  for (;;) {
    const run = await unwrap(client.GET('/api/agent/v1/runs/{id}', { params: { path: { id: runId } }, signal: opts.signal }));
    opts.onProgress?.(run);
    if (isFinished(run)) return run;
    if (now() >= deadline) throw new RunTimeoutError(run);
    await sleep(Math.min(interval, Math.max(0, deadline - now())));
    interval = Math.min(interval * 1.5, opts.maxIntervalMs ?? 5000);
  }
}
