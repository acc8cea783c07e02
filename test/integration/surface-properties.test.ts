// Property-based tests over the whole HTTP surface (fast-check): whatever the path, the method,
// the query string or the body, the server never answers a 5xx, and every answer carries an
// X-Request-Id; an error is always the JSON envelope. Runs on the suite's database (SQLite, or
// PostgreSQL with TEST_DATABASE=postgresql). A failure prints the seed and the shrunk request.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { type RawReply, rawRequest, uniqueKey, V1 } from '../support/api.js';
import { seedArtifact, seedPosts } from '../support/seed.js';
import { serverSuite } from '../support/suite.js';

// With the receivers' secrets set, an unsigned event is refused (401) rather than the documented 503 of a receiver without one.
const t = serverSuite(() => ({
  WEBHOOK_SIGNING_SECRET: 'whsec-properties-0123456789abcdef',
  SERVICE_SCRAPER_SIGNING_SECRET: 'scraper-properties-0123456789abcdef',
}));
const RUNS = { numRuns: 80 };
const CONTRACT_PATHS = [
  '/api/health',
  '/openapi.json',
  '/docs',
  '/api/mcp',
  '/api/sessions/activity',
  '/api/webhooks/backend',
  '/api/webhooks/scraper-monitor',
  `${V1}/pipelines/from-intent`,
  `${V1}/pipelines/{pipeline}`,
  `${V1}/pipelines/{pipeline}/posts`,
  `${V1}/pipelines/{pipeline}/diagnose`,
  `${V1}/pipelines/{pipeline}/inbox`,
  `${V1}/posts/{post}/draft`,
  `${V1}/artifacts/{artifact}`,
  `${V1}/artifacts/{artifact}/transition`,
  `${V1}/fetch/schemas`,
  `${V1}/runs/run_x`,
];
let ids: { pipeline: string; post: string; artifact: string };

beforeAll(async () => {
  // An archive name as handle: its ingest run reads nothing from the network.
  const p = await unwrap(
    t.s.client().POST(`${V1}/pipelines/from-intent`, { body: { handle: 'fuzz-archive', intent: 'properties', idempotency_key: newIdempotencyKey() } }),
  );
  const [post] = await seedPosts(t.s.running.deps, { workspaceId: t.ws, pipelineId: p.pipeline_id, count: 2 });
  const art = await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId: p.pipeline_id, postId: post!, state: 'review' });
  ids = { pipeline: p.pipeline_id, post: post!, artifact: art.id };
});

/** Any UTF-16 code unit, NUL and lone surrogates included, with the ASCII range weighted up. */
const unit = fc
  .oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }) },
    { weight: 1, arbitrary: fc.constantFrom(0, 0xd800, 0xdc00, 0xfeff, 0x2028) },
  )
  .map((c) => String.fromCharCode(c));
const text = fc.string({ unit, maxLength: 24 });

function expectWellFormed(what: string, r: RawReply, { envelope = true } = {}) {
  // The one documented 5xx a request can meet here: /docs before `npm run docs` built the page.
  const documented = /^GET \/docs$/.test(what) && r.res.status === 503;
  if (!documented) expect(r.res.status, `${what} → ${r.res.status} ${r.text.slice(0, 300)}`).toBeLessThan(500);
  expect(r.res.headers.get('x-request-id'), what).toMatch(/^req_[0-9a-f]{32}$/);
  if (r.res.status >= 400) expect(/<html|<pre>|\n\s+at /i.test(r.text), `${what}: HTML or a stack trace in ${r.text.slice(0, 300)}`).toBe(false);
  if (r.res.status >= 400 && envelope) {
    expect(r.res.headers.get('content-type'), what).toMatch(/^application\/json/);
    expect(r.body.error, `${what} → ${r.text.slice(0, 300)}`).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.any(String) }));
  }
}

describe('the HTTP surface, property-based', () => {
  const words = [
    'api',
    'agent',
    'v1',
    'pipelines',
    'from-intent',
    'posts',
    'draft',
    'artifacts',
    'publish',
    'transition',
    'runs',
    'sessions',
    'activity',
    'items',
    'variants',
    'regenerate',
    'sources',
    'refresh',
    'fetch',
    'schemas',
    'diagnose',
    'inbox',
    'health',
    'mcp',
    'webhooks',
    'backend',
    'docs',
    'openapi.json',
    'pl_x',
    'art_x',
  ];
  const segment = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...words) },
    { weight: 1, arbitrary: fc.constantFrom(...words).map((w) => w.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom('', '.', '..', '%00', '%ZZ', '%2F', '%C0%AF', '%ED%A0%80', ';x', '~') },
    { weight: 2, arbitrary: text.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))) },
  );
  const contractPaths = () => CONTRACT_PATHS.map((p) => p.replace('{pipeline}', ids.pipeline).replace('{artifact}', ids.artifact).replace('{post}', ids.post));
  /** A contract path spelled another way: a segment's case, a trailing slash, an empty or extra segment. */
  const respelled = fc
    .tuple(fc.nat(), fc.nat(), fc.constantFrom('upper', 'capital', 'trailing', 'double', 'extra', 'as-is'), segment)
    .map(([i, j, how, extra]) => {
      const all = contractPaths();
      const segs = all[i % all.length]!.split('/');
      const k = 1 + (j % (segs.length - 1));
      if (how === 'upper') segs[k] = segs[k]!.toUpperCase();
      if (how === 'capital') segs[k] = segs[k]!.charAt(0).toUpperCase() + segs[k]!.slice(1);
      if (how === 'double') segs[k] = `/${segs[k]}`;
      if (how === 'extra') segs.splice(k, 0, extra);
      return segs.join('/') + (how === 'trailing' ? '/' : '');
    });
  const path = fc
    .oneof(
      { weight: 3, arbitrary: respelled },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom(`${V1}/`, '/api/', '/'), fc.array(segment, { maxLength: 5 }), fc.constantFrom('', '/', '?', '?limit=5'))
          .map(([prefix, segs, tail]) => `${prefix}${segs.join('/')}${tail}`),
      },
    )
    // The stream answers 200 and stays open: it has its own tests.
    .filter((p) => !/^\/api\/stream(\?|$)/.test(p));

  it('any path and method: never a 5xx, always a request id, errors in the envelope', async () => {
    await fc.assert(
      fc.asyncProperty(path, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), fc.boolean(), async (p, method, withToken) => {
        const r = await rawRequest(t.s, p, {
          method,
          token: withToken ? undefined : null,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: method === 'GET' ? undefined : '{}',
        });
        // JSON-RPC answers of the MCP endpoint are the protocol's own JSON. The path as the server
        // sees it: the URL resolves dot segments (`/../api/mcp` reaches the MCP endpoint).
        const reached = new URL(`http://localhost${p}`).pathname;
        expectWellFormed(`${method} ${p}`, r, { envelope: !(r.res.status !== 401 && r.res.status !== 429 && reached.startsWith('/api/mcp')) });
      }),
      { numRuns: 200 },
    );
  });

  it('any query string on the list operations: never a 5xx', async () => {
    const value = fc.oneof(
      text,
      fc.constantFrom('1e1', '+5', '05', ' 5', '0x10', '-1', '1.5', 'Infinity', '1e400', '9'.repeat(30), 'true', 'TRUE', ''),
      fc.integer().map(String),
    );
    const pair = fc.tuple(fc.oneof(fc.constantFrom('limit', 'cursor', 'has_artifact', 'events'), text), value);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(`${V1}/pipelines/{p}/posts`, '/api/sessions/activity', `${V1}/fetch/schemas`, `${V1}/pipelines/{p}`),
        fc.array(pair, { maxLength: 4 }),
        async (template, pairs) => {
          const query = pairs
            .map(([k, v]) => `${encodeURIComponent(k.replace(/[\ud800-\udfff]/g, 'x'))}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, 'x'))}`)
            .join('&');
          const p = `${template.replace('{p}', ids.pipeline)}?${query}`;
          expectWellFormed(`GET ${p}`, await rawRequest(t.s, p));
        },
      ),
      RUNS,
    );
  });

  it('any JSON body on the local mutating operations: never a 5xx', async () => {
    const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(text, tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    // Valid-looking bodies with one field replaced, and arbitrary JSON.
    const body = (base: Record<string, unknown>) =>
      fc.oneof(
        { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...Object.keys(base)), text).map(([k, v]) => ({ ...base, [k]: v })) },
        { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...Object.keys(base), 'extra'), json).map(([k, v]) => ({ ...base, [k]: v })) },
        { weight: 1, arbitrary: json },
      );
    const key = () => uniqueKey('prop');
    const targets = [
      { method: 'POST', path: () => `${V1}/artifacts/${ids.artifact}/transition`, body: body({ to: 'ready', idempotency_key: key() }) },
      { method: 'POST', path: () => `${V1}/posts/${ids.post}/draft`, body: body({ style_reference: 'Short.', idempotency_key: key() }) },
      { method: 'PUT', path: () => `${V1}/fetch/schemas/prop`, body: body({ fields: { title: { selectors: [{ selector: 'h1' }] } } }) },
      { method: 'POST', path: () => '/api/sessions/ses_prop/items', body: body({ kind: 'note', text: 'x', idempotency_key: key() }) },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: targets.length - 1 }).chain((i) => fc.tuple(fc.constant(targets[i]!), targets[i]!.body)),
        async ([target, b]) => {
          const p = target.path();
          const r = await rawRequest(t.s, p, { method: target.method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
          expectWellFormed(`${target.method} ${p} ${JSON.stringify(b)}`, r);
        },
      ),
      RUNS,
    );
  });
});
