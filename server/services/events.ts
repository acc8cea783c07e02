// Recording events. Call `recordEvent` inside the transaction of the change that causes the
// event, then `deps.events.wake()` after it commits so that streams pick it up at once.
import type { components } from '../../generated/api.js';
import { appendEvent, type Tx } from '../store/events.js';
import type { ServiceDeps } from './context.js';

export type EventEnvelope = components['schemas']['EventEnvelope'];
export type EventType = EventEnvelope['type'];

export async function recordEvent(tx: Tx, deps: Pick<ServiceDeps, 'clock' | 'ids'>, workspaceId: string, type: EventType, data: Record<string, unknown>) {
  const id = `evt_${deps.ids.uuid()}`;
  const createdAt = deps.clock.now();
  await appendEvent(tx, { id, workspaceId, type, data, createdAt });
  return { id, type, created_at: createdAt.toISOString(), data } as EventEnvelope;
}
