// Runs: read one by id, so that a client can follow long-running work to its end.
import * as pipelines from '../services/pipelines.js';
import type { ServiceDeps } from '../services/context.js';
import { callerOf, type Handler } from '../http/typed.js';

export function runHandlers(deps: ServiceDeps) {
  const getRun: Handler<'getRun'> = async (req) => ({
    status: 200,
    body: await pipelines.getRun(deps, callerOf(req), req.path.id),
  });
  return { getRun };
}
