// Liveness (the `Health` tag).
import type { HandlersOf } from '../http/typed.js';

export function healthHandlers() {
  return {
    getHealth: async () => ({ status: 200, body: { status: 'ok' } }),
  } satisfies HandlersOf<'Health'>;
}
