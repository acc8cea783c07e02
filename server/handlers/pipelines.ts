// Pipelines (the `Pipelines` tag): HTTP in and out; the work is in services/pipelines, the health
// report in services/diagnose, the inbox in services/inbox, the schedule in services/artifacts.
import * as pipelines from '../services/pipelines.js';
import { listSchedule } from '../services/artifacts.js';
import { setDestinations } from '../services/destinations.js';
import { diagnosePipeline as diagnose } from '../services/diagnose.js';
import { pipelineInbox } from '../services/inbox.js';
import type { ServiceDeps } from '../services/context.js';
import { listPipelines } from '../services/lists.js';
import { commitHook, type HandlersOf } from '../http/typed.js';

export function pipelineHandlers(deps: ServiceDeps) {
  return {
    listPipelines: async (req) => ({ status: 200, body: await listPipelines(deps, req.caller, req.query) }),

    getPipeline: async (req) => ({ status: 200, body: await pipelines.getPipeline(deps, req.caller, req.path.id) }),

    createPipelineFromIntent: async (req) => ({
      status: 202,
      body: await pipelines.createFromIntent(deps, req.caller, req.body, commitHook(req, 202)),
    }),

    diagnosePipeline: async (req) => ({ status: 200, body: await diagnose(deps, req.caller, req.path.id) }),

    getPipelineInbox: async (req) => ({ status: 200, body: await pipelineInbox(deps, req.caller, req.path.id, req.query) }),

    listPipelineSchedule: async (req) => ({
      status: 200,
      body: await listSchedule(deps, req.caller, req.path.id, { cursor: req.query.cursor, limit: req.query.limit }),
    }),

    setPipelineDestinations: async (req) => ({ status: 200, body: await setDestinations(deps, req.caller, req.path.id, req.body.destinations) }),
  } satisfies HandlersOf<'Pipelines'>;
}
