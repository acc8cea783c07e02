// The record of who did what (the `Audit` tag): HTTP in and out; the listing is in services/lists.
import type { ServiceDeps } from '../services/context.js';
import { listAuditEvents } from '../services/lists.js';
import type { HandlersOf } from '../http/typed.js';

export function auditHandlers(deps: ServiceDeps) {
  return {
    listAuditEvents: async (req) => ({ status: 200, body: await listAuditEvents(deps, req.caller, req.query) }),
  } satisfies HandlersOf<'Audit'>;
}
