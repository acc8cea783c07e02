// The session bridges (under /api/sessions): HTTP in and out; the work is in services/sessions.
import * as sessions from '../services/sessions.js';
import type { ServiceDeps } from '../services/context.js';
import { callerOf, commitHook, type Handler } from '../http/typed.js';

export function sessionHandlers(deps: ServiceDeps) {
  const listSessionActivity: Handler<'listSessionActivity'> = async (req) => ({
    status: 200,
    body: await sessions.listActivity(deps, callerOf(req), req.query.limit),
  });

  const addSessionItem: Handler<'addSessionItem'> = async (req) => ({
    status: 201,
    body: await sessions.addItem(deps, callerOf(req), req.path.sessionId, req.body, commitHook(req, 201)),
  });

  const regenerateVariant: Handler<'regenerateVariant'> = async (req) => ({
    status: 202,
    body: await sessions.regenerateVariant(deps, callerOf(req), req.path.sessionId, req.path.variantId),
  });

  const refreshSource: Handler<'refreshSource'> = async (req) => ({
    status: 202,
    body: await sessions.refreshSource(deps, callerOf(req), req.path.id),
  });

  return { listSessionActivity, addSessionItem, regenerateVariant, refreshSource };
}
