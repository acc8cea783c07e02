// Queuing a run. `enqueueRun` writes the row inside the caller's transaction (so that the run
// exists exactly when the change that asked for it commits); call `deps.jobs.kick()` after the
// commit so that the worker starts it at once. `startRun` does both for a run on its own.
import type { ServiceDeps } from '../services/context.js';
import { insertRun, type RunRow, type RunTx } from '../store/runs.js';
import type { JobKind } from './registry.js';

export interface RunRequest {
  workspaceId: string;
  pipelineId: string | null;
  kind: JobKind;
  input: Record<string, unknown>;
  /** When the run may start (a scheduled publish); default now. */
  runAfter?: Date;
}

export function enqueueRun(tx: RunTx, deps: Pick<ServiceDeps, 'clock' | 'ids'>, r: RunRequest): Promise<RunRow> {
  return insertRun(tx, {
    id: deps.ids.id('run'),
    workspaceId: r.workspaceId,
    pipelineId: r.pipelineId,
    kind: r.kind,
    input: r.input,
    now: deps.clock.now(),
    runAfter: r.runAfter,
  });
}

/** Queues a run outside any other transaction and wakes the worker. */
export async function startRun(deps: ServiceDeps, r: RunRequest): Promise<RunRow> {
  const run = await enqueueRun(deps.db, deps, r);
  deps.jobs.kick();
  return run;
}
