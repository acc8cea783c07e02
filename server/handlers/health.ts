// Liveness and readiness (the `Health` tag).
import type { HandlersOf } from '../http/typed.js';
import { readiness } from '../services/health.js';
import type { ServiceDeps } from '../services/context.js';

export function healthHandlers(deps: ServiceDeps) {
  return {
    getHealth: async () => ({ status: 200, body: { status: 'ok' } }),
    getReadiness: async () => ({ status: 200, body: await readiness(deps) }),
  } satisfies HandlersOf<'Health'>;
}
