// Running it as a service (issue 27): readiness apart from liveness, and GET /metrics: what it
// counts moves by exactly the requests, runs and publishes made, and it is not open to the world.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { isLoopbackAddress, metricsEndpoint } from '../../server/http/metrics.js';
import { createMetrics } from '../../server/services/metrics.js';
import { draftAndWait, publishAndWait, publishingWorld, rawRequest, V1 } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';

let world: Awaited<ReturnType<typeof publishingWorld>>;
beforeAll(async () => {
  world = await publishingWorld();
});
afterAll(async () => {
  await world?.stop();
});

type Samples = Map<string, number>;
/** The samples of a Prometheus text exposition, keyed `name{label="value",…}` as written. */
function parseMetrics(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

async function scrape(s: TestServer, token?: string): Promise<{ status: number; type: string | null; samples: Samples; text: string }> {
  const res = await fetch(`${s.url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), samples: res.ok ? parseMetrics(text) : new Map(), text };
}

const moved = (before: Samples, after: Samples, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);

describe('readiness', () => {
  const needed = readdirSync(
    path.resolve(import.meta.dirname, '../../prisma', process.env.TEST_DATABASE === 'postgresql' ? 'postgresql' : 'sqlite', 'migrations'),
    {
      withFileTypes: true,
    },
  )
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();

  it('answers 200 with the database and its migrations when every migration is applied', async () => {
    const ready = await unwrap(world.s.client('').GET('/api/health/ready'));
    expect(ready).toEqual({ status: 'ready', database: world.s.running.deps.provider, migrations: needed.length });
  });

  it('answers 503 backend_unavailable naming a missing migration, while liveness stays 200', async () => {
    const { db } = world.s.running.deps;
    const newest = needed.at(-1)!;
    await sql`UPDATE _prisma_migrations SET rolled_back_at = finished_at WHERE migration_name = ${newest}`.execute(db);
    try {
      const r = await rawRequest(world.s, '/api/health/ready', { token: null });
      expect(r.res.status).toBe(503);
      expect(r.body.error?.code).toBe('backend_unavailable');
      expect(r.body.error?.message).toContain(newest);
      expect(r.res.headers.get('retry-after')).toBe('30');
      expect((await rawRequest(world.s, '/api/health', { token: null })).res.status).toBe(200);
    } finally {
      await sql`UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE migration_name = ${newest}`.execute(db);
    }
    expect((await rawRequest(world.s, '/api/health/ready', { token: null })).res.status).toBe(200);
  });
});

describe('time limits', () => {
  it("turns off Node's whole-request limit, which would cut off any upload slower than 300 s (uploads have their idle deadline)", () => {
    expect(world.s.running.server.requestTimeout).toBe(0);
    expect(world.s.running.server.headersTimeout).toBeGreaterThan(0);
  });
});

describe('GET /metrics', () => {
  it('counts exactly the requests, runs and publishes made, by operation, kind and platform', async () => {
    const { s, pipelines } = world;
    const before = await scrape(s);
    expect(before.status).toBe(200);
    expect(before.type).toContain('text/plain');
    for (let i = 0; i < 5; i++) await unwrap(s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id: pipelines.mastodon.id } } }));
    for (let i = 0; i < 3; i++) expect((await rawRequest(s, `${V1}/artifacts/art_missing${i}`)).res.status).toBe(404);
    const { artifact } = await draftAndWait(s, pipelines.mastodon.postId);
    await draftAndWait(s, pipelines.mastodon.postId);
    const published = await publishAndWait(s, artifact.id);
    expect(published.artifact.state).toBe('published');
    const after = await scrape(s);
    expect(moved(before.samples, after.samples, 'cpa_http_requests_total{operation="getPipeline",status="200"}')).toBe(5);
    expect(moved(before.samples, after.samples, 'cpa_http_requests_total{operation="getArtifact",status="404"}')).toBe(3);
    expect(moved(before.samples, after.samples, 'cpa_http_request_duration_seconds_count{operation="getPipeline",status="200"}')).toBe(5);
    expect(moved(before.samples, after.samples, 'cpa_runs{kind="draft",status="succeeded"}')).toBe(2);
    expect(moved(before.samples, after.samples, 'cpa_publish_runs{platform="mastodon",status="succeeded"}')).toBe(1);
    expect(moved(before.samples, after.samples, 'cpa_publish_runs{platform="bluesky",status="succeeded"}')).toBe(0);
    // a scrape does not count itself
    expect([...after.samples.keys()].some((k) => k.includes('operation="unmatched"') && k.includes('/metrics'))).toBe(false);
    for (const name of [
      'cpa_sse_subscribers',
      'cpa_run_queue_oldest_age_seconds{lane="default"}',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
    ])
      expect(after.samples.has(name), name).toBe(true);
    if (s.running.deps.provider === 'postgresql') expect(after.samples.has('cpa_db_pool_connections{state="total"}')).toBe(true);
  });

  it('asks for METRICS_TOKEN from every caller when it is set', async () => {
    const metricsToken = 'metrics-token-of-this-instance-0123';
    const s = await startTestServer({ env: { METRICS_TOKEN: metricsToken } });
    try {
      expect((await scrape(s)).status).toBe(401);
      expect((await scrape(s, 'wrong-token-wrong-token-wrong')).status).toBe(401);
      const refused = await fetch(`${s.url}/metrics`);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      expect(refused.headers.get('x-request-id')).toMatch(/^req_/);
      const ok = await scrape(s, metricsToken);
      expect(ok.status).toBe(200);
      expect(ok.samples.has('process_resident_memory_bytes')).toBe(true);
      expect(ok.text).not.toContain(metricsToken);
    } finally {
      await s.stop();
    }
  });

  it('refuses a caller that is not on a loopback address when no token is set', async () => {
    const handler = metricsEndpoint(createMetrics(world.s.running.deps, { subscribers: () => 0 }), null);
    const errors: unknown[] = [];
    const sent: unknown[] = [];
    for (const remoteAddress of ['203.0.113.7', '10.1.2.3', '::ffff:192.168.1.20', '2001:db8::1']) {
      handler(
        { socket: { remoteAddress }, headers: {} } as never,
        { status: () => ({ type: () => ({ send: (t: unknown) => sent.push(t) }) }) } as never,
        (err?: unknown) => errors.push(err),
      );
    }
    expect(errors.map((e) => (e as { status: number; code: string }).code)).toEqual(['forbidden', 'forbidden', 'forbidden', 'forbidden']);
    expect(sent).toEqual([]);
    expect(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'].every(isLoopbackAddress)).toBe(true);
    expect([undefined, '', 'localhost', '0.0.0.0', '192.168.0.1'].some(isLoopbackAddress)).toBe(false);
  });
});
