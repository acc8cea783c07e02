// Input the contract does not describe, answered in the contract's terms: other spellings of a
// path, strings a database cannot store, odd spellings of numbers, requests Node's HTTP parser
// refuses. Never a 5xx, never HTML or a stack trace; always the envelope with X-Request-Id.
import { describe, expect, it } from 'vitest';
import { newPipeline, type RawReply, rawRequest, unique, uniqueKey, V1 } from '../support/api.js';
import { serverSuite } from '../support/suite.js';

const t = serverSuite();
const raw = (path: string, init: RequestInit & { token?: string | null } = {}) => rawRequest(t.s, path, init);

const oddPipeline = () => newPipeline(t.s, { handle: 'odd-input', intent: unique('odd') });

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

describe('numbers and booleans in query strings: one spelling each', () => {
  const odd = [
    '1e1',
    '+5',
    '05',
    ' 5',
    '5 ',
    '0x10',
    '0b1',
    '0o7',
    '5.0',
    '5.',
    '.5',
    'Infinity',
    '-Infinity',
    'NaN',
    '1e400',
    '99999999999999999999999',
    '-0',
    '1_0',
    '５',
    '',
  ];

  it('refuses other spellings of an integer as 422 naming the parameter', async () => {
    const { pipeline_id } = await oddPipeline();
    for (const path of [`${V1}/pipelines/${pipeline_id}/posts`, '/api/sessions/activity']) {
      for (const value of odd) {
        const r = await raw(`${path}?limit=${encodeURIComponent(value)}`);
        expect(`${path} limit=${JSON.stringify(value)} → ${r.res.status}`).toBe(`${path} limit=${JSON.stringify(value)} → 422`);
        expectEnvelope(r, 422, 'validation_failed');
        expect(r.body.error!.message).toMatch(/^query\.limit /);
      }
      expect((await raw(`${path}?limit=5`)).res.status).toBe(200);
    }
  });

  it('a boolean is true or false, nothing else', async () => {
    const { pipeline_id } = await oddPipeline();
    for (const value of ['TRUE', 'True', '1', '0', 'yes', ' true', 'false ', '']) {
      const r = await raw(`${V1}/pipelines/${pipeline_id}/posts?has_artifact=${encodeURIComponent(value)}`);
      expect(`has_artifact=${JSON.stringify(value)} → ${r.res.status}`).toBe(`has_artifact=${JSON.stringify(value)} → 422`);
      expect(r.body.error!.message).toMatch(/^query\.has_artifact /);
    }
    for (const value of ['true', 'false']) expect((await raw(`${V1}/pipelines/${pipeline_id}/posts?has_artifact=${value}`)).res.status).toBe(200);
  });
});

describe('strings a database cannot store', () => {
  const post = (path: string, body: unknown, method = 'POST') =>
    raw(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const key = () => uniqueKey('odd-input');

  it('refuses NUL and unpaired surrogates in body fields as 422 naming the field, on every database', async () => {
    const cases: Array<[string, unknown, string, string?]> = [
      [`${V1}/pipelines/from-intent`, { handle: 'ada\u0000x', intent: 'y', idempotency_key: key() }, 'body.handle'],
      [`${V1}/pipelines/from-intent`, { handle: 'ada', intent: 'lone \ud800 high', idempotency_key: key() }, 'body.intent'],
      [`${V1}/pipelines/from-intent`, { handle: 'ada', intent: 'lone \udc00 low', idempotency_key: key() }, 'body.intent'],
      [`${V1}/pipelines/from-intent`, { handle: 'ada', intent: 'reversed \udc00\ud800 pair', idempotency_key: key() }, 'body.intent'],
      [`${V1}/fetch/schemas/odd`, { fields: { title: { selectors: [{ selector: 'h1\u0000' }] } } }, 'body.fields.title.selectors.0.selector', 'PUT'],
      [`${V1}/fetch/schemas/odd`, { fields: { ['t\ud800']: { selectors: [{ selector: 'h1' }] } } }, 'body.fields', 'PUT'],
    ];
    for (const [path, body, field, method] of cases) {
      const r = await post(path, body, method);
      expect(`${field} → ${r.res.status} ${r.body.error?.message}`).toMatch(
        new RegExp(`^${field.replace(/\./g, '\\.')} → 422 ${field.replace(/\./g, '\\.')} `),
      );
      expectEnvelope(r, 422, 'validation_failed');
    }
    // A well-formed pair (an emoji) and ordinary text still pass.
    const ok = await post(`${V1}/pipelines/from-intent`, { handle: 'ada-emoji', intent: 'launch \ud83d\ude80 day', idempotency_key: key() });
    expect(ok.res.status).toBe(202);
  });

  it('refuses NUL in a path parameter and a query parameter the same way', async () => {
    const r = await raw(`${V1}/artifacts/art_%00x`);
    expectEnvelope(r, 422, 'validation_failed');
    expect(r.body.error!.message).toMatch(/^(path|params)\.id /);
    const { pipeline_id } = await oddPipeline();
    const q = await raw(`${V1}/pipelines/${pipeline_id}/posts?cursor=%00`);
    expect(q.res.status).toBeGreaterThanOrEqual(400);
    expect(q.res.status).toBeLessThan(500);
    expect(q.res.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('JSON bodies that are not objects', () => {
  it('a bare string, number, true, false or null is 400 saying a JSON object is wanted; broken JSON says it is not JSON', async () => {
    const post = (body: string) => raw(`${V1}/pipelines/from-intent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    for (const bare of ['"AAA"', '42', 'true', 'null']) {
      const r = await post(bare);
      expect([bare, r.res.status]).toEqual([bare, 400]);
      expect(r.body.error?.message).toBe('The request body must be a JSON object, not a bare string, number, true, false or null.');
    }
    const broken = await post('{"handle": ');
    expect(broken.res.status).toBe(400);
    expect(broken.body.error?.message).toBe('The request body is not valid JSON.');
  });
});

describe("requests Node's HTTP parser refuses", () => {
  /** Sends raw bytes and reads the whole answer (the server closes the connection). */
  async function rawHttp(bytes: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const { connect } = await import('node:net');
    const url = new URL(t.s.url);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (d) => (data += d.toString())); // a string already (setEncoding), typed as a Buffer
      socket.on('end', () => resolve(data));
      socket.on('error', (err) => (data ? resolve(data) : reject(err)));
    });
    const [head = '', body = ''] = text.split('\r\n\r\n');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }

  const cases: Array<[string, string, number, string]> = [
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n', 400, 'bad_request'],
    ['a header name with a space', 'GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', 400, 'bad_request'],
    ['headers over 16 KiB', `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'bad_request'],
    ['a URL over 16 KiB', `GET /api/health?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, 'bad_request'],
  ];
  for (const [what, bytes, status, code] of cases) {
    it(`answers ${what} with ${status} in the envelope, X-Request-Id and Connection: close`, async () => {
      const r = await rawHttp(bytes);
      expect(r.status).toBe(status);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
      expect(r.headers.connection).toBe('close');
      expect(JSON.parse(r.body)).toEqual({ error: { code, message: expect.any(String) } });
    });
  }
});
