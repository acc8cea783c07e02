// Pipelines: HTTP in and out; the work is in services/pipelines.
import * as pipelines from '../services/pipelines.js';
import type { ServiceDeps } from '../services/context.js';
import { callerOf, commitHook, type Handler } from '../http/typed.js';

export function pipelineHandlers(deps: ServiceDeps) {
  const getPipeline: Handler<'getPipeline'> = async (req) => ({
    status: 200,
    body: await pipelines.getPipeline(deps, callerOf(req), req.path.id),
  });

  const createPipelineFromIntent: Handler<'createPipelineFromIntent'> = async (req) => ({
    status: 202,
    body: await pipelines.createFromIntent(deps, callerOf(req), req.body, commitHook(req, 202)),
  });

  return { getPipeline, createPipelineFromIntent };
}
