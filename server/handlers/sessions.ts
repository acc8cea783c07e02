// The session bridges (the `Sessions` tag, under /api/sessions): HTTP in and out; the work is in services/sessions.
import * as sessions from '../services/sessions.js';
import type { ServiceDeps } from '../services/context.js';
import { commitHook, type HandlersOf } from '../http/typed.js';

export function sessionHandlers(deps: ServiceDeps) {
  return {
    listSessionActivity: async (req) => ({ status: 200, body: await sessions.listActivity(deps, req.caller, req.query.limit) }),

    addSessionItem: async (req) => ({
      status: 201,
      body: await sessions.addItem(deps, req.caller, req.path.sessionId, req.body, commitHook(req, 201)),
    }),

    regenerateVariant: async (req) => ({
      status: 202,
      body: await sessions.regenerateVariant(deps, req.caller, req.path.sessionId, req.path.variantId),
    }),

    refreshSource: async (req) => ({ status: 202, body: await sessions.refreshSource(deps, req.caller, req.path.id) }),
  } satisfies HandlersOf<'Sessions'>;
}
