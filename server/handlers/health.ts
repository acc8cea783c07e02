// Liveness.
import type { Handler } from '../http/typed.js';

export function healthHandlers() {
  const getHealth: Handler<'getHealth'> = async () => ({ status: 200, body: { status: 'ok' } });
  return { getHealth };
}
