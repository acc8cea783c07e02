// A pipeline's health report and its inbox: HTTP in and out; the work is in services/diagnose and
// services/inbox.
import { diagnosePipeline as diagnose } from '../services/diagnose.js';
import { pipelineInbox } from '../services/inbox.js';
import type { ServiceDeps } from '../services/context.js';
import { callerOf, type Handler } from '../http/typed.js';

export function diagnoseHandlers(deps: ServiceDeps) {
  const diagnosePipeline: Handler<'diagnosePipeline'> = async (req) => ({
    status: 200,
    body: await diagnose(deps, callerOf(req), req.path.id),
  });

  const getPipelineInbox: Handler<'getPipelineInbox'> = async (req) => ({
    status: 200,
    body: await pipelineInbox(deps, callerOf(req), req.path.id),
  });

  return { diagnosePipeline, getPipelineInbox };
}
