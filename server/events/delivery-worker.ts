// The webhook emitter: delivers outbox events to the WEBHOOK_TARGETS receivers, signed with
// WEBHOOK_SIGNING_SECRET by the receivers' own scheme, through the outbound client. At least
// once: a delivery row (created with its event) is claimed with a lease, attempted, and settled
// in one transaction with its attempt's audit row; a crash between sending and settling sends
// it again after the lease, and receivers dedupe on the event id. Every time comes from
// `deps.clock`, so the whole schedule is tested by moving a clock and calling `runDue()`.
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from 'pino';
import type { ServiceDeps } from '../services/context.js';
import { envelopeOf } from '../services/events.js';
import * as deliveries from '../store/deliveries.js';
import { findEventById } from '../store/events.js';
import { Coalesced } from '../lib/coalesce.js';
import { classifyError, classifyStatus, jitterOf, KEPT_RESPONSE_BYTES, nextAttemptAt, type Outcome } from './schedule.js';
import { signatureHeader } from './signature.js';

export interface DeliveryWorkerOptions {
  secret: string;
  logger: Logger;
  /** Time allowed for one attempt (connect, send, answer). */
  timeoutMs?: number;
  /** How long a claim holds before another worker may take the delivery over. */
  leaseMs?: number;
  /** Deliveries attempted at once. */
  concurrency?: number;
  /** Pause between two looks at the queue when nothing wakes the worker. */
  pollMs?: number;
}

/** The largest answer read; more is an error (transient) rather than memory spent on it. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

function keptBody(body: Buffer): string {
  // The decoder holds back a character cut in half at the limit.
  return new StringDecoder('utf8').write(body.subarray(0, KEPT_RESPONSE_BYTES));
}

export class DeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly runner = new Coalesced(
    () => this.runDue(),
    (err) => this.opts.logger.error({ err }, 'delivering webhooks failed; retrying on the next poll'),
  );

  constructor(
    private readonly deps: Pick<ServiceDeps, 'db' | 'clock' | 'ids' | 'outbound'>,
    private readonly opts: DeliveryWorkerOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.nudge(), this.opts.pollMs ?? 2000);
    this.timer.unref();
    this.nudge();
  }

  /** Looks at the queue soon (coalesced): after new events, or on the poll. */
  nudge(): void {
    if (!this.stopped) this.runner.trigger();
  }

  /** Attempts every delivery due now, a few at a time; returns how many attempts were made. */
  async runDue(): Promise<number> {
    let made = 0;
    const concurrency = this.opts.concurrency ?? 4;
    while (!this.stopped) {
      const now = this.deps.clock.now();
      const claimed = await deliveries.claimDue(this.deps.db, {
        now,
        lockedUntil: new Date(now.getTime() + (this.opts.leaseMs ?? 60_000)),
        limit: concurrency,
      });
      if (!claimed.length) break;
      await Promise.all(claimed.map((d) => this.attempt(d)));
      made += claimed.length;
    }
    return made;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.runner.settled();
  }

  private async attempt(d: deliveries.DeliveryRow): Promise<void> {
    const attempt = d.attempts + 1;
    const uuid = this.deps.ids.uuid();
    const attemptId = `wd_${uuid}`;
    const startedAt = this.deps.clock.now();
    const event = await findEventById(this.deps.db, d.eventId);
    let outcome: Outcome;
    let status: number | null = null;
    let error: string | null = null;
    let responseBody: string | null = null;
    if (!event) {
      outcome = 'fatal';
      error = 'the event is no longer in the outbox (removed by retention)';
    } else {
      try {
        const body = Buffer.from(JSON.stringify(envelopeOf(event)));
        const url = new URL(d.target);
        const res = await this.deps.outbound.request({
          url: d.target,
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'X-Service-Signature': signatureHeader(this.opts.secret, Math.floor(startedAt.getTime() / 1000), url.pathname + url.search, body),
            'X-Service-Event-Id': event.id,
            'X-Service-Event-Type': event.type,
            'X-Service-Delivery-Id': attemptId,
          },
          body,
          timeoutMs: this.opts.timeoutMs ?? 10_000,
          maxRedirects: 0,
          maxBytes: MAX_RESPONSE_BYTES,
        });
        status = res.status;
        responseBody = keptBody(res.body);
        outcome = classifyStatus(res.status);
        if (outcome !== 'succeeded') error = `the receiver answered ${res.status}`;
      } catch (err) {
        outcome = classifyError(err);
        error = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
      }
    }
    const finishedAt = this.deps.clock.now();
    const next = outcome === 'transient' ? nextAttemptAt(attempt, finishedAt, jitterOf(uuid)) : null;
    const settled: deliveries.AttemptResult['next'] =
      outcome === 'succeeded'
        ? { status: 'succeeded', nextAttemptAt: finishedAt }
        : next
          ? { status: 'pending', nextAttemptAt: next }
          : { status: 'failed', nextAttemptAt: finishedAt };
    await deliveries.recordAttempt(this.deps.db, {
      id: attemptId,
      deliveryId: d.id,
      attempt,
      status,
      error,
      responseBody,
      startedAt,
      finishedAt,
      next: settled,
    });
    const log = { deliveryId: d.id, attemptId, attempt, target: d.target, status, outcome, next: settled.status };
    if (settled.status === 'failed') this.opts.logger.warn({ ...log, error }, 'webhook delivery failed for good; `cpa admin deliveries retry` sends it again');
    else this.opts.logger.debug(log, 'webhook delivery attempted');
  }
}
