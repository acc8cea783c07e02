// The event stream (the `Events` tag): HTTP in, then the hub takes the response over (Server-Sent Events).
import type { HandlersOf } from '../http/typed.js';
import type { ServiceDeps } from '../services/context.js';
import type { EventStreams } from '../events/hub.js';
import * as events from '../services/events.js';

export function eventHandlers(deps: ServiceDeps, streams: EventStreams) {
  return {
    streamEvents: async (req) => {
      const types = events.parseTypeFilter(req.query.events);
      const header = req.headers['last-event-id'];
      const afterSeq = await events.resumeAfter(deps, req.caller, typeof header === 'string' ? header : undefined);
      const { workspaceId } = req.caller;
      return { status: 200, body: { sse: (_req, res) => streams.serve(res, { workspaceId, types, afterSeq }) } };
    },
  } satisfies HandlersOf<'Events'>;
}
