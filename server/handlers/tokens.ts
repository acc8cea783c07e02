// The workspace's tokens and person sessions (the `Tokens` tag): HTTP in and out; the work is in services/tokens.
import type { ServiceDeps } from '../services/context.js';
import { listTokens } from '../services/lists.js';
import * as tokens from '../services/tokens.js';
import type { HandlersOf } from '../http/typed.js';

export function tokenHandlers(deps: ServiceDeps) {
  return {
    listTokens: async (req) => ({ status: 200, body: await listTokens(deps, req.caller, req.query) }),
    getCurrentToken: async (req) => ({ status: 200, body: await tokens.currentToken(deps, req.caller) }),
    createToken: async (req) => ({ status: 201, body: await tokens.createNamedToken(deps, req.caller, req.body) }),
    revokeToken: async (req) => ({ status: 200, body: await tokens.revokeToken(deps, req.caller, req.path.id) }),
    // The answer carries the new secret: no cache may keep it.
    rotateToken: async (req) => ({
      status: 201,
      body: await tokens.rotateToken(deps, req.caller, req.path.id, req.body.overlap_seconds),
      headers: { 'Cache-Control': 'no-store' },
    }),
  } satisfies HandlersOf<'Tokens'>;
}
