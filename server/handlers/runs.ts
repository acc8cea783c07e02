// Runs (the `Runs` tag): read one by id, so that a client can follow long-running work to its end.
import * as pipelines from '../services/pipelines.js';
import type { ServiceDeps } from '../services/context.js';
import { listRuns } from '../services/lists.js';
import type { HandlersOf } from '../http/typed.js';

export function runHandlers(deps: ServiceDeps) {
  return {
    listRuns: async (req) => ({ status: 200, body: await listRuns(deps, req.caller, req.query) }),
    getRun: async (req) => ({ status: 200, body: await pipelines.getRun(deps, req.caller, req.path.id) }),
  } satisfies HandlersOf<'Runs'>;
}
