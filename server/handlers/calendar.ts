// The workspace calendar (the `Calendar` tag): what is scheduled between two times, across pipelines.
import { getCalendar } from '../services/lists.js';
import type { ServiceDeps } from '../services/context.js';
import type { HandlersOf } from '../http/typed.js';

export function calendarHandlers(deps: ServiceDeps) {
  return {
    getCalendar: async (req) => ({ status: 200, body: await getCalendar(deps, req.caller, req.query) }),
  } satisfies HandlersOf<'Calendar'>;
}
