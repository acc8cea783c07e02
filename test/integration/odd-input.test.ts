// Input the contract does not describe, answered in the contract's terms: other spellings of a
// path, strings a database cannot store, odd spellings of numbers, requests Node's HTTP parser
// refuses. Never a 5xx, never HTML or a stack trace; always the envelope with X-Request-Id.
import { describe, expect, it } from 'vitest';
import { rawRequest, type RawReply } from '../support/raw.js';
import { serverSuite } from '../support/suite.js';

const t = serverSuite();
const V1 = '/api/agent/v1';
const raw = (path: string, init: RequestInit & { token?: string | null } = {}) => rawRequest(t.s, path, init);

function expectEnvelope(r: RawReply, status: number, code: string) {
  expect([r.res.status, r.body.error?.code]).toEqual([status, code]);
  expect(r.res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  expect(r.text).not.toMatch(/<html|<pre>|\n\s+at /i);
}

describe('path spellings: case-sensitive, no trailing slash, exactly as in the contract', () => {
  const json = { 'content-type': 'application/json' };
  const spellings: Array<[string, string, string?]> = [
    ['GET', '/api/health/'],
    ['GET', '/Api/health'],
    ['GET', '/API/HEALTH'],
    ['GET', `${V1}/pipelines/pl_x/`],
    ['GET', `${V1}/Pipelines/pl_x`],
    ['GET', `/API/agent/v1/pipelines/pl_x`],
    ['GET', `/api/Agent/v1/runs/run_x`],
    ['GET', `${V1}/pipelines/pl_x/diagnose/`],
    ['GET', `${V1}//pipelines/pl_x`],
    ['GET', `//api/agent/v1/pipelines/pl_x`],
    ['GET', `${V1}/pipelines/pl_x/posts/?limit=5`],
    ['POST', `${V1}/pipelines/from-intent/`, JSON.stringify({ handle: 'x', intent: 'y', idempotency_key: 'k'.repeat(20) })],
    ['POST', `${V1}/Pipelines/from-intent`, JSON.stringify({ handle: 'x', intent: 'y', idempotency_key: 'k'.repeat(20) })],
    ['POST', `${V1}/pipelines/from-intent/`, '{"handle":'],
    ['GET', '/api/stream/'],
    ['GET', '/api/Stream'],
    ['POST', '/api/mcp/', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
    ['POST', '/API/mcp', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
    ['POST', '/api/mcp/x', '{}'],
    ['GET', '/api/sessions/activity/'],
  ];

  it('without a token: 401 unauthorized, like any route under /api', async () => {
    for (const [method, path, body] of spellings) {
      const r = await raw(path, { method, headers: json, body, token: null });
      expect(`${method} ${path} → ${r.res.status}`).toBe(`${method} ${path} → 401`);
      expectEnvelope(r, 401, 'unauthorized');
    }
  });

  it('with a token: the 404 envelope, counted by the rate limit', async () => {
    for (const [method, path, body] of spellings) {
      const r = await raw(path, { method, headers: json, body });
      expect(`${method} ${path} → ${r.res.status}`).toBe(`${method} ${path} → 404`);
      expectEnvelope(r, 404, 'not_found');
      expect(r.res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    }
  });

  it('the public documents keep their one spelling too', async () => {
    for (const path of ['/openapi.json/', '/OpenAPI.json', '/docs/', '/Docs', '/api/health/']) {
      const r = await raw(path, { token: null });
      expect(`${path} → ${r.res.status}`).toBe(`${path} → ${path.startsWith('/api') ? 401 : 404}`);
      expect(r.res.headers.get('x-request-id')).toMatch(/^req_/);
    }
    expect((await raw('/openapi.json', { token: null })).res.status).toBe(200);
    expect((await raw('/api/health', { token: null })).res.status).toBe(200);
  });
});
