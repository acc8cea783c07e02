// OpenTelemetry traces (issue 27): with an OTLP endpoint configured, each request is a server span
// named by its contract route, continuing the caller's W3C trace, exported to the collector; with
// none, nothing of OpenTelemetry is loaded.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { startTracing } from '../../server/http/tracing.js';
import { newPipeline, rawRequest, V1 } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

let collector: Server;
const received: Array<{ contentType: string | undefined; spans: OtlpSpan[] }> = [];
let s: TestServer;

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
        };
        received.push({ contentType: req.headers['content-type'], spans: body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((sc) => sc.spans)) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', () => resolve()));
  s = await startTestServer({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`, OTEL_BSP_SCHEDULE_DELAY: '50' },
  });
});
afterAll(async () => {
  await s?.stop();
  await new Promise((resolve) => collector?.close(resolve));
});

const attr = (span: OtlpSpan, key: string) => {
  const v = span.attributes.find((a) => a.key === key)?.value;
  return v ? (v.stringValue ?? v.intValue ?? v.boolValue) : undefined;
};

async function spanNamed(name: string, traceId: string): Promise<OtlpSpan> {
  for (let i = 0; i < 200; i++) {
    const span = received.flatMap((r) => r.spans).find((x) => x.name === name && x.traceId === traceId);
    if (span) return span;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no span ${name} in trace ${traceId} reached the collector`);
}

describe('OpenTelemetry traces', () => {
  it('exports a server span per request, in the caller’s trace, named by the contract route', async () => {
    const { pipeline_id } = await newPipeline(s, { handle: '@ada@mastodon.example' });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const ok = await rawRequest(s, `${V1}/pipelines/${pipeline_id}`, { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
    expect(ok.res.status).toBe(200);
    const span = await spanNamed('GET /api/agent/v1/pipelines/{id}', traceId);
    expect(span.parentSpanId).toBe(parentId);
    expect(span.kind).toBe(2); // SERVER
    expect(attr(span, 'cpa.operation')).toBe('getPipeline');
    expect(Number(attr(span, 'http.response.status_code'))).toBe(200);
    expect(attr(span, 'cpa.request_id')).toBe(ok.res.headers.get('x-request-id'));
    expect(attr(span, 'url.path')).toBe(`${V1}/pipelines/${pipeline_id}`);

    const otherTrace = '0af7651916cd43dd8448eb211c80319c';
    const missing = await rawRequest(s, `${V1}/artifacts/art_nothing_here`, { headers: { traceparent: `00-${otherTrace}-b7ad6b7169203331-01` } });
    expect(missing.res.status).toBe(404);
    expect(Number(attr(await spanNamed('GET /api/agent/v1/artifacts/{id}', otherTrace), 'http.response.status_code'))).toBe(404);
    expect(received[0]?.contentType).toContain('application/json');
    // the bearer token never goes into a span
    expect(JSON.stringify(received)).not.toContain(s.token);
  });

  it('loads nothing when no endpoint is configured', async () => {
    expect(await startTracing(loadConfig({ DATA_DIR: '/tmp/unused' }), pino({ level: 'silent' }))).toBeNull();
    // the compiled server imports OpenTelemetry only dynamically, from startTracing
    const bundle = readFileSync(path.resolve(import.meta.dirname, '../../build/server/main.js'), 'utf8');
    expect(bundle).not.toMatch(/^import [^;]*from "@opentelemetry\//m);
  });
});
