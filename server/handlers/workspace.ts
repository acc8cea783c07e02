// The token's workspace and its settings (the `Workspace` tag): HTTP in and out; the rules of the
// approval gate are in services/approval.ts.
import * as approval from '../services/approval.js';
import type { ServiceDeps } from '../services/context.js';
import type { HandlersOf } from '../http/typed.js';

export function workspaceHandlers(deps: ServiceDeps) {
  return {
    getWorkspace: async (req) => ({ status: 200, body: await approval.getWorkspace(deps, req.caller) }),
    updateWorkspace: async (req) => ({ status: 200, body: await approval.updateWorkspace(deps, req.caller, req.body) }),
  } satisfies HandlersOf<'Workspace'>;
}
