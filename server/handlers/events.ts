// The event stream: HTTP in, then the hub takes the response over (Server-Sent Events).
import { hubOf } from '../events/hub.js';
import { callerOf, type Handler } from '../http/typed.js';
import type { ServiceDeps } from '../services/context.js';
import * as events from '../services/events.js';

export function eventHandlers(deps: ServiceDeps) {
  const streamEvents: Handler<'streamEvents'> = async (req) => {
    const caller = callerOf(req);
    const types = events.parseTypeFilter(req.query.events);
    const header = req.headers['last-event-id'];
    const afterSeq = await events.resumeAfter(deps, caller, typeof header === 'string' ? header : undefined);
    const hub = hubOf(deps.events);
    return { status: 200, body: { sse: (_req, res) => hub.serve(res, { workspaceId: caller.workspaceId, types, afterSeq }) } };
  };
  return { streamEvents };
}
