// The review desk's sign-in (the `Desk` tag): HTTP in and out; the work is in services/desk.
import * as desk from '../services/desk.js';
import type { ServiceDeps } from '../services/context.js';
import type { HandlersOf } from '../http/typed.js';

export function deskHandlers(deps: ServiceDeps) {
  return {
    // Both answers carry a secret (a sign-in code, a person's session): no cache may keep them.
    createDeskSignInLink: async (req) => ({
      status: 201,
      body: await desk.createSignInLink(deps, req.caller, req.body?.name),
      headers: { 'Cache-Control': 'no-store' },
    }),
    exchangeDeskSignIn: async (req) => ({ status: 200, body: await desk.exchangeSignInCode(deps, req.body.code), headers: { 'Cache-Control': 'no-store' } }),
  } satisfies HandlersOf<'Desk'>;
}
