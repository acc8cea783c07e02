// Runs (the `Runs` tag): read one by id, so that a client can follow long-running work to its end.
import * as pipelines from '../services/pipelines.js';
import type { ServiceDeps } from '../services/context.js';
import type { HandlersOf } from '../http/typed.js';

export function runHandlers(deps: ServiceDeps) {
  return {
    getRun: async (req) => ({ status: 200, body: await pipelines.getRun(deps, req.caller, req.path.id) }),
  } satisfies HandlersOf<'Runs'>;
}
