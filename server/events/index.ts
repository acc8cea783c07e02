// Wiring of the events area at start: the hub (streams), the retention sweep, the delivery
// worker (webhook emitter). Each one registers on the lifecycle, so that shutdown ends the
// streams and stops the worker before the database closes.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { ServiceDeps } from '../services/context.js';
import type { DatabaseHandle } from '../store/database.js';
import { deleteSettledBefore } from '../store/deliveries.js';
import { deleteEventsBefore } from '../store/events.js';
import { DeliveryWorker } from './delivery-worker.js';
import { EventHub } from './hub.js';

/** Events are kept this long (then swept), unless a delivery still waits to send them. */
export const EVENT_RETENTION_MS = 7 * 24 * 3600 * 1000;
/** Settled deliveries and their attempts (the audit) are kept this long after their last attempt. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600 * 1000;
const SWEEP_EVERY_MS = 3600 * 1000;

export function createEventHub(database: DatabaseHandle, config: Config, logger: Logger): EventHub {
  return new EventHub({
    db: database.db,
    provider: database.provider,
    databaseUrl: config.databaseUrl,
    logger: logger.child({ component: 'events' }),
    heartbeatMs: config.heartbeatSeconds * 1000,
    maxStreamMs: config.streamMaxSeconds * 1000,
  });
}

/** Removes events past retention and old settled deliveries. */
export async function sweepEvents(deps: Pick<ServiceDeps, 'db' | 'clock'>): Promise<{ events: number; deliveries: number }> {
  const now = deps.clock.now().getTime();
  const events = await deleteEventsBefore(deps.db, new Date(now - EVENT_RETENTION_MS));
  const deliveries = await deleteSettledBefore(deps.db, new Date(now - DELIVERY_RETENTION_MS));
  return { events, deliveries };
}

export async function startEventServices(hub: EventHub, deps: ServiceDeps, env: { config: Config; lifecycle: Lifecycle; logger: Logger }): Promise<void> {
  const { config, lifecycle, logger } = env;
  await hub.start();
  lifecycle.onClose('event streams', () => hub.close());

  const sweep = () =>
    sweepEvents(deps).then(
      (n) => (n.events || n.deliveries ? logger.info({ removed: n }, 'removed events and deliveries past retention') : undefined),
      (err: unknown) => logger.error({ err }, 'event retention sweep failed'),
    );
  await sweep();
  const sweeper = setInterval(() => void sweep(), SWEEP_EVERY_MS); // sweep() logs its own failures
  sweeper.unref();
  lifecycle.onClose('event retention sweeper', () => clearInterval(sweeper));

  const secret = config.webhookSigningSecret;
  if (!secret) {
    if (config.webhookTargets.length) logger.error('WEBHOOK_TARGETS is set but WEBHOOK_SIGNING_SECRET is not: webhook deliveries wait until it is set');
    return;
  }
  const worker = new DeliveryWorker(deps, { secret, logger: logger.child({ component: 'webhooks' }) });
  hub.onCommitted(() => worker.nudge());
  worker.start();
  lifecycle.onClose('webhook delivery worker', () => worker.stop());
}
