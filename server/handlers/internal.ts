// The signed webhook receivers (the `Internal` tag). The signature was verified on the raw body before parsing
// (server/events/receiver.ts) and the event validated against the description; what is left
// here is the agreement of the headers with the body, and the service call.
import { validationFailed } from '../errors.js';
import type { HandlerRequest, HandlersOf } from '../http/typed.js';
import type { ServiceDeps } from '../services/context.js';
import * as events from '../services/events.js';

type ReceiverOp = 'receiveBackendEvent' | 'receiveScraperMonitorEvent';

function mustEqual(header: string, value: string | string[] | undefined, field: string, expected: string) {
  if (value !== expected) {
    throw validationFailed(`header ${header}`, `(${String(value)}) differs from body.${field} (${expected})`);
  }
}

export function internalHandlers(deps: ServiceDeps) {
  const receive = async (req: HandlerRequest<ReceiverOp>) => {
    const envelope = req.body;
    mustEqual('X-Service-Event-Type', req.headers['x-service-event-type'], 'type', envelope.type);
    mustEqual('X-Service-Event-Id', req.headers['x-service-event-id'], 'id', envelope.id);
    const { duplicate } = await events.receiveEvent(deps, envelope);
    req.log.info({ eventId: envelope.id, type: envelope.type, deliveryId: req.headers['x-service-delivery-id'], duplicate }, 'received a signed event');
    return { status: 200 as const, body: duplicate ? { ok: true as const, duplicate: true } : { ok: true as const } };
  };
  return { receiveBackendEvent: receive, receiveScraperMonitorEvent: receive } satisfies HandlersOf<'Internal'>;
}
