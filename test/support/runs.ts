// Waiting for background runs in tests: poll the run row until it is finished (or in `status`).
import type { ServiceDeps } from '../../server/services/context.js';
import { findRunById, type RunRow } from '../../server/store/runs.js';

export interface WaitOptions {
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
  /** Wait for this status instead of any finished one (`succeeded` or `failed`). */
  status?: 'queued' | 'running' | 'succeeded' | 'failed';
}

/** Resolves with the run once it is finished (or in `opts.status`); throws with its last state on timeout. */
export async function waitForRun(deps: Pick<ServiceDeps, 'db'>, runId: string, opts: WaitOptions = {}): Promise<RunRow> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  const done = (r: RunRow) => (opts.status ? r.status === opts.status : r.status === 'succeeded' || r.status === 'failed');
  for (;;) {
    const last = await findRunById(deps.db as ServiceDeps['db'], runId);
    if (last && done(last)) return last;
    if (Date.now() > deadline) {
      throw new Error(
        `run ${runId} did not reach ${opts.status ?? 'a final status'} in time; last seen: ${last ? `${last.status} (attempts ${last.attempts}, ${last.errorCode ?? 'no error'})` : 'absent'}`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits for the run and fails the test unless it succeeded; returns the run with its output parsed. */
export async function expectRunSucceeded(deps: Pick<ServiceDeps, 'db'>, runId: string, opts: Omit<WaitOptions, 'status'> = {}) {
  const run = await waitForRun(deps, runId, opts);
  if (run.status !== 'succeeded') throw new Error(`run ${runId} ${run.status}: ${run.errorCode}: ${run.errorMessage}`);
  return { run, output: run.output ? (JSON.parse(run.output) as Record<string, unknown>) : null };
}
