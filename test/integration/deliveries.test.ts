// The webhook emitter against a local HTTPS receiver that fails on purpose, on a real database,
// with the real outbound client, and with a clock the test moves (the whole ~33 hour schedule runs
// in a moment). Covers the signature of every attempt (checked with node:crypto), the retry
// schedule with its jitter bounds, the classification of answers, the 8 KiB audit body, the lease
// after a crash and a restart, and the operators' `cpa admin deliveries list|show|retry`.
import { TokenCache } from '../../server/services/token-cache.js';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig, type Config } from '../../server/config.js';
import { DeliveryWorker } from '../../server/events/delivery-worker.js';
import { randomIds, type Clock } from '../../server/lib/clock.js';
import { createOutboundClient } from '../../server/outbound/client.js';
import type { ServiceDeps } from '../../server/services/context.js';
import { recordEvent } from '../../server/services/events.js';
import { createWorkspace } from '../../server/services/tokens.js';
import { openDatabase, type DatabaseHandle } from '../../server/store/database.js';
import { claimDue } from '../../server/store/deliveries.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startFake, type Fake } from '../support/https-fake.js';
import { cpa, expectExit, json } from '../e2e/support.js';
import { findRows, updateRows } from '../support/rows.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const SECRET = 'emitter-secret-0123456789abcdef';
const PATH = '/hooks/in?src=cp';
const MIN = 60_000;
const HOUR = 60 * MIN;
/** The spec's delays before attempts 2 to 7. */
const DELAYS = [1 * MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 6 * HOUR, 24 * HOUR];

/** What the receiver does with the next request: answer, drop the connection, or never answer. */
type Behaviour = { status: number; body?: string; headers?: Record<string, string> } | 'reset' | 'hang';
const script: Behaviour[] = [];

let fake: Fake;
let tdb: TestDatabase;
let database: DatabaseHandle;
let config: Config;
let now: Date;
const clock: Clock = { now: () => new Date(now) };
let deps: ServiceDeps;
let ws: string;

function answer(req: http.IncomingMessage, res: http.ServerResponse) {
  const b = script.shift() ?? { status: 200, body: '{"ok":true}' };
  if (b === 'hang') return;
  if (b === 'reset') return req.socket.destroy();
  res.writeHead(b.status, { 'content-type': 'application/json', ...b.headers });
  res.end(b.body ?? '{}');
}

function depsOn(handle: DatabaseHandle): ServiceDeps {
  return {
    db: handle.db,
    provider: handle.provider,
    clock,
    ids: randomIds,
    cursorKey: Buffer.alloc(32),
    config,
    outbound: createOutboundClient(config),
    events: { wake: () => {} },
    jobs: { kick: () => {} },
    tokenCache: new TokenCache(),
  } as ServiceDeps;
}

const worker = (d: ServiceDeps = deps) => new DeliveryWorker(d, { secret: SECRET, logger: pino({ level: 'silent' }), timeoutMs: 1500 });

beforeAll(async () => {
  fake = await startFake({ tls: true, handler: answer });
  tdb = await createTestDatabase();
  config = loadConfig({
    DATA_DIR: tdb.dataDir,
    ...(tdb.databaseUrl ? { DATABASE_URL: tdb.databaseUrl } : {}),
    WEBHOOK_SIGNING_SECRET: SECRET,
    WEBHOOK_TARGETS: `${fake.url}${PATH}`,
    ...fake.outboundEnv,
  });
  database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  now = new Date('2026-11-22T10:00:00.000Z');
  deps = depsOn(database);
  ws = (await createWorkspace(deps, 'Emitter')).workspaceId;
});
afterAll(async () => {
  await database?.close();
  await fake?.close();
  await tdb?.drop();
});
beforeEach(async () => {
  script.length = 0;
  fake.requests.length = 0;
  // Each test counts its own attempts: nothing of an earlier test may still be due.
  await updateRows(deps.db, 'Delivery', { status: 'pending' }, { status: 'failed' });
});

const delivery = async (eventId: string) => (await findRows(deps.db, 'Delivery', { eventId }))[0]!;
const attempts = (deliveryId: string) => findRows(deps.db, 'DeliveryAttempt', { deliveryId }, 'attempt');
const emit = (data: Record<string, unknown> = { riff_id: 'art_1', source_post_id: 'post_1' }) => recordEvent(deps.db, deps, ws, 'riff.ready', data);

/** Checks a received request against the spec's scheme, computed here with node:crypto. */
function expectSigned(r: Fake['requests'][number], at: Date) {
  const header = String(r.headers['x-service-signature']);
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  expect(m, header).not.toBeNull();
  expect(Number(m![1])).toBe(Math.floor(at.getTime() / 1000));
  const bodyHash = createHash('sha256').update(r.body).digest('hex');
  const expected = createHmac('sha256', SECRET).update(`v1:${m![1]}.POST.${PATH}.${bodyHash}`).digest();
  expect(timingSafeEqual(Buffer.from(m![2]!, 'hex'), expected)).toBe(true);
  const envelope = JSON.parse(r.body.toString('utf8')) as { id: string; type: string };
  expect(r.method).toBe('POST');
  expect(r.url).toBe(PATH);
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers['x-service-event-id']).toBe(envelope.id);
  expect(r.headers['x-service-event-type']).toBe(envelope.type);
  expect(String(r.headers['x-service-delivery-id'])).toMatch(/^wd_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  return envelope;
}

describe('the retry schedule', () => {
  it('retries transient failures (5xx, 429, a dropped connection, a timeout) 60 s, 5 min, 30 min, 2 h, 6 h and 24 h later (+0–10 %), then stays failed after 7 attempts', async () => {
    script.push({ status: 503 }, { status: 429 }, 'reset', 'hang', { status: 500 }, { status: 502 }, { status: 503, body: '{"error":"still down"}' });
    const event = await emit();
    const w = worker();
    const d0 = await delivery(event.id);
    expect(d0).toMatchObject({ status: 'pending', attempts: 0, target: `${fake.url}${PATH}` });
    for (let k = 1; k <= 7; k++) {
      const at = new Date(now);
      expect(await w.runDue(), `attempt ${k}`).toBe(1);
      // (the fake records a request once it has read it, which a timed-out attempt does not wait for)
      await vi.waitFor(() => expect(fake.requests).toHaveLength(k));
      const envelope = expectSigned(fake.requests[k - 1]!, at);
      expect(envelope).toEqual(event);
      const d = await delivery(event.id);
      expect(d.attempts).toBe(k);
      if (k === 7) {
        expect(d.status).toBe('failed');
        break;
      }
      expect(d.status).toBe('pending');
      const wait = d.nextAttemptAt.getTime() - at.getTime();
      expect(wait, `delay before attempt ${k + 1}`).toBeGreaterThanOrEqual(DELAYS[k - 1]!);
      expect(wait).toBeLessThanOrEqual(DELAYS[k - 1]! * 1.1);
      // Not a moment early…
      now = new Date(d.nextAttemptAt.getTime() - 1);
      expect(await w.runDue()).toBe(0);
      // …and due on time.
      now = d.nextAttemptAt;
    }
    now = new Date(now.getTime() + 30 * 24 * HOUR);
    expect(await w.runDue()).toBe(0);
    expect(fake.requests).toHaveLength(7);
    const rows = await attempts((await delivery(event.id)).id);
    expect(rows.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(rows.map((a) => a.status)).toEqual([503, 429, null, null, 500, 502, 503]);
    expect(rows.every((a) => a.error)).toBe(true);
    expect(rows[3]!.error).toMatch(/1500 ms/);
    expect(rows[6]!.responseBody).toBe('{"error":"still down"}');
    // One X-Service-Delivery-Id per attempt, recorded as the attempt's id.
    expect(rows.map((a) => a.id)).toEqual(fake.requests.map((r) => r.headers['x-service-delivery-id']));
    expect(new Set(rows.map((a) => a.id)).size).toBe(7);
  });

  it('a success after transient failures ends the delivery as succeeded', async () => {
    script.push({ status: 502 }, { status: 204 });
    const event = await emit();
    const w = worker();
    expect(await w.runDue()).toBe(1);
    now = (await delivery(event.id)).nextAttemptAt;
    expect(await w.runDue()).toBe(1);
    expect(await delivery(event.id)).toMatchObject({ status: 'succeeded', attempts: 2, lastStatus: 204, lastError: null });
    now = new Date(now.getTime() + 48 * HOUR);
    expect(await w.runDue()).toBe(0);
  });
});

describe('classification', () => {
  it('2xx is success at once; other 3xx and 4xx are fatal (no retry); 429 is not', async () => {
    const cases: Array<[Behaviour, string]> = [
      [{ status: 200, body: '{"ok":true}' }, 'succeeded'],
      [{ status: 202 }, 'succeeded'],
      [{ status: 400 }, 'failed'],
      [{ status: 401 }, 'failed'],
      [{ status: 404 }, 'failed'],
      [{ status: 410 }, 'failed'],
      [{ status: 301, headers: { location: `${fake.url}/elsewhere` } }, 'failed'],
      [{ status: 307, headers: { location: `${fake.url}/elsewhere` } }, 'failed'],
      [{ status: 429 }, 'pending'],
    ];
    const w = worker();
    for (const [behaviour, expected] of cases) {
      script.push(behaviour);
      const event = await emit();
      expect(await w.runDue()).toBe(1);
      const d = await delivery(event.id);
      expect(d.status, JSON.stringify(behaviour)).toBe(expected);
      expect(d.attempts).toBe(1);
      if (typeof behaviour !== 'string') expect(d.lastStatus).toBe(behaviour.status);
    }
    // Redirects are not followed: nothing reached /elsewhere.
    expect(fake.requests.every((r) => r.url === PATH)).toBe(true);
    // The fatal ones are not attempted again, however long one waits; the 429 is.
    now = new Date(now.getTime() + 2 * MIN);
    expect(await w.runDue()).toBe(1);
  });

  it('keeps the first 8 KiB of the answer, cut on a character boundary', async () => {
    script.push({ status: 500, body: 'a'.repeat(20_000) }, { status: 200, body: '\u00e9'.repeat(5000) });
    const w = worker();
    const e1 = await emit();
    const e2 = await emit();
    await w.runDue();
    const [a1] = await attempts((await delivery(e1.id)).id);
    const [a2] = await attempts((await delivery(e2.id)).id);
    const bodies = [a1!.responseBody!, a2!.responseBody!].sort((x, y) => x.length - y.length);
    expect(bodies[0]).toBe('\u00e9'.repeat(4096));
    expect(bodies[1]).toBe('a'.repeat(8192));
  });
});

describe('surviving a crash and a restart', () => {
  it('a delivery claimed by a worker that died is taken again after its lease, by a new process', async () => {
    const event = await emit();
    // A worker claims it and dies before attempting it.
    const claimed = await claimDue(deps.db, { now: clock.now(), lockedUntil: new Date(now.getTime() + 60_000), limit: 10 });
    expect(claimed.map((d) => d.eventId)).toContain(event.id);
    // A restart: a new database connection and a new worker.
    const reopened = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    try {
      const w = worker(depsOn(reopened));
      now = new Date(now.getTime() + 30_000);
      expect(await w.runDue()).toBe(0);
      now = new Date(now.getTime() + 31_000);
      expect(await w.runDue()).toBe(1);
      expect((await findRows(reopened.db, 'Delivery', { eventId: event.id }))[0]?.status).toBe('succeeded');
    } finally {
      await reopened.close();
    }
  });
});

describe('cpa admin deliveries', () => {
  const env = () => ({ DATA_DIR: tdb.dataDir, ...(tdb.databaseUrl ? { DATABASE_URL: tdb.databaseUrl } : {}) });

  it('lists, shows and retries a failed delivery; the next attempt is made at once', async () => {
    script.push({ status: 404, body: '{"error":"no such hook"}' });
    const event = await emit();
    const w = worker();
    await w.runDue();
    const failed = await delivery(event.id);
    expect(failed.status).toBe('failed');
    const [firstAttempt] = await attempts(failed.id);

    const [list, show] = await Promise.all([
      cpa(['--json', 'admin', 'deliveries', 'list', '--status', 'failed', '--event', event.id], { env: env() }),
      cpa(['--json', 'admin', 'deliveries', 'show', firstAttempt!.id], { env: env() }),
    ]);
    expectExit(list, 0);
    expect(json<{ data: Array<{ id: string; status: string; attempts: number; last_status: number }> }>(list).data).toEqual([
      expect.objectContaining({ id: failed.id, status: 'failed', attempts: 1, last_status: 404 }),
    ]);
    expectExit(show, 0);
    const shown = json<{ id: string; attempts: Array<{ id: string; status: number; response_body: string }> }>(show);
    expect(shown.id).toBe(failed.id);
    expect(shown.attempts).toEqual([expect.objectContaining({ id: firstAttempt!.id, status: 404, response_body: '{"error":"no such hook"}' })]);

    const retry = await cpa(['--json', 'admin', 'deliveries', 'retry', failed.id], { env: env() });
    expectExit(retry, 0);
    expect(json<{ status: string }>(retry).status).toBe('pending');
    // The CLI set it due at its own (real) time, which is before the test's clock.
    expect(await w.runDue()).toBe(1);
    expect(await delivery(event.id)).toMatchObject({ status: 'succeeded', attempts: 2 });

    const [again, missing, table] = await Promise.all([
      cpa(['admin', 'deliveries', 'retry', failed.id], { env: env() }),
      cpa(['admin', 'deliveries', 'show', 'dlv_nothing'], { env: env() }),
      cpa(['admin', 'deliveries', 'list', '--limit', '5'], { env: env() }),
    ]);
    expectExit(again, 8); // state: a succeeded delivery has nothing to retry
    expect(again.stderr).toMatch(/has succeeded/);
    expectExit(missing, 7);
    expectExit(table, 0);
    expect(table.stdout).toContain(failed.id);
  });
});
