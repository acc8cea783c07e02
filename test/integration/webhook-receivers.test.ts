// The signed webhook receivers against a real server. Signatures are computed in the test with
// node:crypto from the spec (test/support/webhook-signing.ts). Covers acceptance (into the outbox
// and the stream), every rejection of the signature scheme (some before the body is read),
// body and header validation, replay dedupe (also concurrent), the alternative event names,
// the workspace an event goes to, and the 503 of an unconfigured receiver.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { findEventById } from '../../server/store/events.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { workspaceOf } from '../support/seed.js';
import { openStream } from '../support/stream-reader.js';
import { deliveryId, eventId, expectedSignature, nowSeconds, riffReady, signatureHeader, signedHeaders } from '../support/webhook-signing.js';
import { countRows } from '../support/rows.js';
import { V1 } from '../support/api.js';

const BACKEND = '/api/webhooks/backend';
const MONITOR = '/api/webhooks/scraper-monitor';
const BACKEND_SECRET = 'backend-secret-0123456789abcdef';
const MONITOR_SECRET = 'monitor-secret-0123456789abcdef';

let s: TestServer;
let unconfigured: TestServer;
let ws: string;

beforeAll(async () => {
  [s, unconfigured] = await Promise.all([
    startTestServer({ env: { WEBHOOK_SIGNING_SECRET: BACKEND_SECRET, SERVICE_SCRAPER_SIGNING_SECRET: MONITOR_SECRET } }),
    // No scraper secret, and a default workspace that does not exist.
    startTestServer({ env: { WEBHOOK_SIGNING_SECRET: BACKEND_SECRET, WEBHOOK_DEFAULT_WORKSPACE: 'ws_missing' } }),
  ]);
  ws = await workspaceOf(s.running.deps, s.token);
});
afterAll(async () => {
  await Promise.all([s?.stop(), unconfigured?.stop()]);
});

type Path = typeof BACKEND | typeof MONITOR;

/** A signed delivery through the typed client (it sends JSON.stringify(body), which is what is signed). */
async function deliver(
  path: Path,
  event: { id: string; type: string; [k: string]: unknown },
  opts: { server?: TestServer; secret?: string; headers?: Record<string, string> } = {},
) {
  const secret = opts.secret ?? (path === BACKEND ? BACKEND_SECRET : MONITOR_SECRET);
  const raw = JSON.stringify(event);
  const h = { ...signedHeaders(secret, path, raw, event), ...opts.headers };
  const client = (opts.server ?? s).client('');
  return client.POST(path, {
    params: {
      header: {
        'X-Service-Signature': h['X-Service-Signature']!,
        'X-Service-Event-Id': h['X-Service-Event-Id']!,
        'X-Service-Event-Type': h['X-Service-Event-Type']!,
        'X-Service-Delivery-Id': h['X-Service-Delivery-Id']!,
      },
    },
    body: event as never,
  });
}

/** A raw POST (for bodies the typed client would not send). */
async function rawPost(path: string, raw: string, headers: Record<string, string>) {
  const r = await fetch(`${s.url}${path}`, { method: 'POST', headers, body: raw });
  return { status: r.status, body: (await r.json()) as { error?: { code: string; message: string }; ok?: boolean }, headers: r.headers };
}

const stored = (id: string) => findEventById(s.running.deps.db, id);

describe('accepting a signed event', () => {
  it('answers {ok: true}, stores the event under its id, and streams it (both receivers)', async () => {
    const st = await openStream(s.client());
    try {
      const a = riffReady();
      const b = {
        id: eventId(),
        type: 'operator.error',
        created_at: '2026-11-22T09:00:00.000Z',
        data: { operator_id: 'op_ext', error: { code: 'credential_dead', message: 'session expired' } },
      };
      const ra = await deliver(BACKEND, a);
      expect(ra.response.status).toBe(200);
      expect(ra.data).toEqual({ ok: true });
      expect(ra.response.headers.get('x-request-id')).toMatch(/^req_/);
      const rb = await deliver(MONITOR, b);
      expect(rb.data).toEqual({ ok: true });
      await st.waitForEvents(2);
      expect(st.events.map((f) => [f.id, f.event])).toEqual([
        [a.id, 'riff.ready'],
        [b.id, 'operator.error'],
      ]);
      // The envelope is the sender's: same id, created_at and data.
      expect(st.envelopes()).toEqual([a, b]);
      expect((await stored(a.id))?.workspaceId).toBe(ws);
    } finally {
      st.close();
    }
  });

  it('accepts any one of several v1 values (secret rotation)', async () => {
    const e = riffReady();
    const raw = JSON.stringify(e);
    const t = nowSeconds();
    const old = expectedSignature('an-old-secret-that-was-rotated', t, BACKEND, raw);
    const current = expectedSignature(BACKEND_SECRET, t, BACKEND, raw);
    const r = await deliver(BACKEND, e, { headers: { 'X-Service-Signature': `t=${t},v1=${old},v1=${current}` } });
    expect(r.response.status).toBe(200);
    expect(await stored(e.id)).not.toBeNull();
  });

  it('accepts t anywhere within 300 seconds of now, either way', async () => {
    for (const skew of [-290, 290]) {
      const e = riffReady();
      const raw = JSON.stringify(e);
      const r = await deliver(BACKEND, e, { headers: { 'X-Service-Signature': signatureHeader(BACKEND_SECRET, nowSeconds() + skew, BACKEND, raw) } });
      expect(r.response.status, `skew ${skew}`).toBe(200);
    }
  });

  it('stores and streams the alternative names under the canonical types', async () => {
    const st = await openStream(s.client(), { events: 'ingest.completed,post.ready' });
    try {
      const scrape = { id: eventId(), type: 'scrape.completed', created_at: new Date().toISOString(), data: { operator_id: 'op_1', run_id: 'run_1' } };
      const social = { id: eventId(), type: 'social_post.ready', created_at: new Date().toISOString(), data: { post_id: 'post_9', operator_id: 'op_1' } };
      expect((await deliver(MONITOR, scrape)).response.status).toBe(200);
      expect((await deliver(BACKEND, social)).response.status).toBe(200);
      await st.waitForEvents(2);
      expect(st.events.map((f) => [f.id, f.event])).toEqual([
        [scrape.id, 'ingest.completed'],
        [social.id, 'post.ready'],
      ]);
      expect(st.envelopes().map((e) => e.type)).toEqual(['ingest.completed', 'post.ready']);
      expect((await stored(social.id))?.type).toBe('post.ready');
    } finally {
      st.close();
    }
  });
});

describe('replays', () => {
  it('answer 200 with duplicate: true and change nothing', async () => {
    const st = await openStream(s.client(), { events: 'brief.ready' });
    try {
      const e = { id: eventId(), type: 'brief.ready', created_at: new Date().toISOString(), data: { brief_id: 'art_b1' } };
      expect((await deliver(BACKEND, e)).data).toEqual({ ok: true });
      // A redelivery (new delivery id, new signature time) and one through the other receiver.
      expect((await deliver(BACKEND, e)).data).toEqual({ ok: true, duplicate: true });
      expect((await deliver(MONITOR, e)).data).toEqual({ ok: true, duplicate: true });
      const marker = { id: eventId(), type: 'brief.ready', created_at: new Date().toISOString(), data: { brief_id: 'art_b2' } };
      await deliver(BACKEND, marker);
      await st.waitForEvents(2);
      expect(st.events.map((f) => f.id)).toEqual([e.id, marker.id]);
    } finally {
      st.close();
    }
  });

  it('arriving at the same moment store the event once', async () => {
    const e = riffReady({ riff_id: 'art_concurrent' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => deliver(BACKEND, e)));
    expect(answers.map((a) => a.response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers.filter((a) => !a.data?.duplicate)).toHaveLength(1);
    expect(await countRows(s.running.deps.db, 'Event', { id: e.id })).toBe(1);
  });
});

describe('refusing a signature', () => {
  const cases: Array<[string, (t: number, raw: string) => string | null]> = [
    ['a missing header', () => null],
    ['t that is not a number', (t, raw) => `t=abc,v1=${expectedSignature(BACKEND_SECRET, t, BACKEND, raw)}`],
    ['t with a fraction', (t, raw) => `t=${t}.5,v1=${expectedSignature(BACKEND_SECRET, t, BACKEND, raw)}`],
    ['no t', (t, raw) => `v1=${expectedSignature(BACKEND_SECRET, t, BACKEND, raw)}`],
    ['v1 absent', (t) => `t=${t}`],
    ['v1 too short', (t, raw) => `t=${t},v1=${expectedSignature(BACKEND_SECRET, t, BACKEND, raw).slice(1)}`],
    ['v1 in upper case', (t, raw) => `t=${t},v1=${expectedSignature(BACKEND_SECRET, t, BACKEND, raw).toUpperCase()}`],
    ['v1 not hex', (t) => `t=${t},v1=${'z'.repeat(64)}`],
    ['t 301 s in the past', (t, raw) => signatureHeader(BACKEND_SECRET, t - 301, BACKEND, raw)],
    // 305, not 301: the seconds that pass before the server reads its clock bring a future t closer
    // (a loaded CI machine once took one); the exact boundary is checkTimestamp's unit test.
    ['t 305 s in the future', (t, raw) => signatureHeader(BACKEND_SECRET, t + 305, BACKEND, raw)],
    ['another secret', (t, raw) => signatureHeader('not-the-secret-0123456789', t, BACKEND, raw)],
    ['the other receiver\u2019s path', (t, raw) => signatureHeader(BACKEND_SECRET, t, MONITOR, raw)],
    ['another body', (t) => signatureHeader(BACKEND_SECRET, t, BACKEND, JSON.stringify(riffReady()))],
    ['another t than signed', (t, raw) => `t=${t - 1},v1=${expectedSignature(BACKEND_SECRET, t, BACKEND, raw)}`],
  ];
  for (const [name, header] of cases) {
    it(`with ${name}: 401 unauthorized, nothing stored`, async () => {
      const e = riffReady();
      const raw = JSON.stringify(e);
      const h = signedHeaders(BACKEND_SECRET, BACKEND, raw, e);
      const sig = header(nowSeconds(), raw);
      if (sig === null) delete h['X-Service-Signature'];
      else h['X-Service-Signature'] = sig;
      const r = await rawPost(BACKEND, raw, h);
      expect(r.status).toBe(401);
      expect(r.body.error?.code).toBe('unauthorized');
      expect(await stored(e.id)).toBeNull();
    });
  }

  it('signs the query string too', async () => {
    const e = riffReady();
    const raw = JSON.stringify(e);
    const r = await rawPost(`${BACKEND}?via=proxy`, raw, signedHeaders(BACKEND_SECRET, BACKEND, raw, e));
    expect(r.status).toBe(401);
    expect(await stored(e.id)).toBeNull();
  });

  /** Sends the headers and a few bytes of a longer body, never the rest, and waits for an answer. */
  function withUnfinishedBody(headers: Record<string, string>) {
    return new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      const req = http.request(`${s.url}${BACKEND}`, { method: 'POST', headers: { ...headers, 'Content-Length': '100000' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode!, connection: res.headers.connection, body });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.write('{"id":"evt_');
    });
  }

  it('refuses a stale or malformed header before reading the body, and closes the connection', async () => {
    const stale = await withUnfinishedBody({ 'Content-Type': 'application/json', 'X-Service-Signature': `t=${nowSeconds() - 3600},v1=${'a'.repeat(64)}` });
    expect(stale.status).toBe(401);
    expect(stale.connection).toBe('close');
    expect(JSON.parse(stale.body).error.message).toMatch(/300 seconds/);
    const noV1 = await withUnfinishedBody({ 'Content-Type': 'application/json', 'X-Service-Signature': `t=${nowSeconds()}` });
    expect(noV1.status).toBe(401);
    const badT = await withUnfinishedBody({ 'Content-Type': 'application/json', 'X-Service-Signature': `t=soon,v1=${'a'.repeat(64)}` });
    expect(badT.status).toBe(401);
  });
});

describe('refusing a body or headers', () => {
  it('415 for a body that is not JSON, 400 for malformed JSON, 422 for JSON that is not an event', async () => {
    const e = riffReady();
    const text = 'not json at all';
    const asText = await rawPost(BACKEND, text, { ...signedHeaders(BACKEND_SECRET, BACKEND, text, e), 'Content-Type': 'text/plain' });
    expect(asText.status).toBe(415);
    const broken = '{"id": "evt_';
    const malformed = await rawPost(BACKEND, broken, signedHeaders(BACKEND_SECRET, BACKEND, broken, e));
    expect(malformed.status).toBe(400);
    expect(malformed.body.error?.code).toBe('bad_request');
    for (const notAnObject of ['null', '[]', '42', '"evt"']) {
      const r = await rawPost(BACKEND, notAnObject, signedHeaders(BACKEND_SECRET, BACKEND, notAnObject, e));
      expect(r.status, notAnObject).toBe(422);
    }
    const invalid = { ...e, data: { source_post_id: 'post_1' } }; // riff_id missing
    const r = await deliver(BACKEND, invalid);
    expect(r.response.status).toBe(422);
    expect(r.error?.error.code).toBe('validation_failed');
    const unknownType = { ...e, type: 'riff.exploded' };
    expect((await deliver(BACKEND, unknownType)).response.status).toBe(422);
    expect(await stored(e.id)).toBeNull();
  });

  it('422 naming body.created_at for a time outside the years 0001-9999 in UTC (issue 30: it would poison every list of events)', async () => {
    for (const created_at of ['9999-12-31T23:00:00-02:00', '0000-12-31T23:00:00Z', '0001-01-01T00:30:00+01:00']) {
      const e = { ...riffReady(), created_at };
      const r = await deliver(BACKEND, e);
      expect(r.response.status, created_at).toBe(422);
      expect(r.error?.error.message).toMatch(/created_at/);
      expect(await stored(e.id)).toBeNull();
    }
  });

  it('422 when X-Service-Event-Type or X-Service-Event-Id differs from the body', async () => {
    const e = riffReady();
    const t = await deliver(BACKEND, e, { headers: { 'X-Service-Event-Type': 'post.ready' } });
    expect(t.response.status).toBe(422);
    expect(t.error?.error.message).toBe('header X-Service-Event-Type (post.ready) differs from body.type (riff.ready)');
    const i = await deliver(BACKEND, e, { headers: { 'X-Service-Event-Id': eventId() } });
    expect(i.response.status).toBe(422);
    expect(i.error?.error.message).toContain('X-Service-Event-Id');
    const noDelivery = await rawPost(
      BACKEND,
      JSON.stringify(e),
      (({ 'X-Service-Delivery-Id': _d, ...h }) => h)(signedHeaders(BACKEND_SECRET, BACKEND, JSON.stringify(e), e)),
    );
    expect(noDelivery.status).toBe(422);
    expect(await stored(e.id)).toBeNull();
  });
});

describe('an unconfigured receiver', () => {
  it('answers 503 backend_unavailable when its secret is unset, whatever the request', async () => {
    const e = riffReady();
    const raw = JSON.stringify(e);
    const signed = await fetch(`${unconfigured.url}${MONITOR}`, {
      method: 'POST',
      headers: signedHeaders('any-secret-0123456789abcdef', MONITOR, raw, e),
      body: raw,
    });
    expect(signed.status).toBe(503);
    expect(((await signed.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'backend_unavailable',
      message: expect.stringContaining('SERVICE_SCRAPER_SIGNING_SECRET'),
    });
    const unsigned = await fetch(`${unconfigured.url}${MONITOR}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: raw });
    expect(unsigned.status).toBe(503);
  });

  it('answers 503 when the event cannot be placed in a workspace (WEBHOOK_DEFAULT_WORKSPACE unknown)', async () => {
    const e = riffReady();
    const r = await deliver(BACKEND, e, { server: unconfigured });
    expect(r.response.status).toBe(503);
    expect(r.error?.error.message).toContain('WEBHOOK_DEFAULT_WORKSPACE');
  });
});

describe('the workspace of a received event', () => {
  it('is the owner of a resource the data names; with several workspaces and none named, 503', async () => {
    const otherToken = await s.newWorkspace('Second');
    const other = await workspaceOf(s.running.deps, otherToken);
    const { pipeline_id } = await unwrap(
      s.client(otherToken).POST(`${V1}/pipelines/from-intent`, {
        body: { handle: '@grace@mastodon.example', intent: 'Posts about compilers', idempotency_key: newIdempotencyKey() },
      }),
    );
    const mine = await openStream(s.client(), { events: 'riff.ready' });
    const theirs = await openStream(s.client(otherToken), { events: 'riff.ready' });
    try {
      const e = riffReady({ pipeline_id });
      expect((await deliver(BACKEND, e)).response.status).toBe(200);
      expect((await theirs.waitForEvents(1)).map((f) => f.id)).toEqual([e.id]);
      expect((await stored(e.id))?.workspaceId).toBe(other);
      // Two workspaces now, and this event names nothing either knows.
      const orphan = riffReady();
      const r = await deliver(BACKEND, orphan);
      expect(r.response.status).toBe(503);
      expect(r.error?.error.code).toBe('backend_unavailable');
      expect(await stored(orphan.id)).toBeNull();
      expect(mine.events).toHaveLength(0);
    } finally {
      mine.close();
      theirs.close();
    }
  });
});

// Keep the helper honest: a known-answer vector computed outside Node
// (printf '%s' "v1:1795340000.POST./api/webhooks/backend.$(printf '%s' '{"id":"evt_1"}' | openssl dgst -sha256 -hex | cut -d' ' -f2)"
//  | openssl dgst -sha256 -hmac whsec_test_vector_secret).
it('the test signature helper matches a vector computed with openssl', () => {
  expect(expectedSignature('whsec_test_vector_secret', 1795340000, '/api/webhooks/backend', '{"id":"evt_1"}')).toBe(
    '420e4ea4dfcf14786c4c77fee8fecac20759395d6706d22d4181be627f2a2876',
  );
  expect(deliveryId()).toMatch(/^wd_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
});
