// The review desk's server side: the page and its assets at `/` under a strict
// Content-Security-Policy, and the one-time sign-in links (docs/desk.md, "Signing in"): a code
// works once, for 10 minutes, signs its person in with a session of their own (never the token
// that made the link), is stored only hashed, and unauthenticated exchanges are rate-limited per
// client address.
import { execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { randomIds } from '../../server/lib/clock.js';
import { workspaceOf } from '../support/seed.js';
import { createSignInLink, exchangeSignInCode, LINK_TTL_MS, sweepExpiredSignInLinks } from '../../server/services/desk.js';
import { SIGN_IN_ATTEMPTS_PER_MINUTE } from '../../server/http/desk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { cpaIn, projectRoot } from '../e2e/support.js';

let s: TestServer;
beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build.mjs', 'desk', '--if-stale'], { cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

const signInRows = () => s.running.deps.db.selectFrom('Setting').selectAll().where('key', 'like', 'desk_sign_in:%').execute();
/** The links themselves, without the marks spent codes leave. */
const linkRows = async () => (await signInRows()).filter((r) => !r.key.startsWith('desk_sign_in:used:'));
/** A GET with this Accept-Encoding, its body as sent (fetch would decompress it). */
const raw = (path: string, acceptEncoding: string) =>
  new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    httpGet(`${s.url}${path}`, { headers: { 'Accept-Encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
const exchange = (code: string) =>
  fetch(`${s.url}/api/desk/sign-in`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) });

describe('the page', () => {
  it('is served at / with a Content-Security-Policy that allows no inline script or style and no framing', async () => {
    const res = await fetch(`${s.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    const html = await res.text();
    // Nothing the page loads comes from another host, and it has no inline script.
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    const js = await fetch(`${s.url}/desk/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('sends scripts and styles compressed as the browser accepts them (Brotli first, then gzip), and as they are to one that takes neither', async () => {
    const plain = await raw('/desk/app.js', 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const [accept, encoding, inflate] of [
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
    ] as const) {
      for (const asset of ['/desk/app.js', '/desk/style.css']) {
        const r = await raw(asset, accept);
        expect(r.status).toBe(200);
        expect(r.headers['content-encoding']).toBe(encoding);
        expect(r.headers['content-type']).toMatch(asset.endsWith('.js') ? /javascript/ : /^text\/css/);
        expect(r.headers.vary).toMatch(/Accept-Encoding/i);
        expect(r.headers['content-security-policy']).toContain("frame-ancestors 'none'");
        expect(r.body.length).toBeLessThan(inflate(r.body).length / 2);
        if (asset === '/desk/app.js') expect(inflate(r.body).equals(plain.body)).toBe(true);
      }
    }
  });

  it('serves /favicon.ico (an icon, not a 404), and the page names it', async () => {
    const res = await fetch(`${s.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(await (await fetch(`${s.url}/`)).text()).toContain('<link rel="icon" href="/favicon.ico" />');
  });

  it('answers an unknown asset with the JSON 404, and leaves /docs and the API as they were', async () => {
    const res = await fetch(`${s.url}/desk/nothing.js`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await fetch(`${s.url}/docs`)).status).toBe(200);
    expect((await fetch(`${s.url}/api/agent/v1/pipelines/pl_x`)).status).toBe(401);
  });
});

describe('sign-in links', () => {
  it("sign their person in once, with a session of its own, never their maker's token: a second exchange of the same code is refused", async () => {
    const link = await unwrap(s.client().POST('/api/desk/sign-in-links', { body: { name: 'Ada' } }));
    expect(link.path).toBe(`/#/sign-in/${link.code}`);
    expect(link.code).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const first = await exchange(link.code);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const session = (await first.json()) as { token: string; id: string; name: string; expires_at: string };
    expect(session).toMatchObject({ name: 'Ada', id: expect.stringMatching(/^tok_/) });
    expect(session.token).toMatch(/^cps_[0-9a-f]{64}$/);
    expect(session.token).not.toBe(s.token);
    const second = await exchange(link.code);
    expect(second.status).toBe(401);
    const message = ((await second.json()) as { error: { code: string; message: string } }).error.message;
    expect(message).toContain('npx cpa desk');
    // Said as docs/desk.md promises: the owner of a link someone else used learns that it was used.
    expect(message).toMatch(/^This sign-in link was used already/);
    // A code never made is not said to be used.
    const unknown = await exchange('A'.repeat(22));
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(/^This sign-in link is not valid/);
  });

  it('are made only with a valid token', async () => {
    const { response } = await s.client('f'.repeat(64)).POST('/api/desk/sign-in-links');
    expect(response.status).toBe(401);
  });

  it('keep neither the code nor any token in the database', async () => {
    const link = await unwrap(s.client().POST('/api/desk/sign-in-links'));
    const rows = await signInRows();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(`${row.key} ${row.value}`).not.toContain(link.code);
      expect(`${row.key} ${row.value}`).not.toContain(s.token);
      expect(`${row.key} ${row.value}`).not.toMatch(/cp[as]_/);
    }
  });

  it('expire after 10 minutes, and the sweep removes the expired ones only', async () => {
    const deps = s.running.deps;
    const me = { workspaceId: await workspaceOf(deps, s.token) };
    const later = { now: () => new Date(Date.now() + LINK_TTL_MS + 1000) };
    const expired = await createSignInLink(deps, me, 'Ada');
    await expect(exchangeSignInCode({ db: deps.db, clock: later, ids: randomIds }, expired.code)).rejects.toMatchObject({ status: 401 });
    const kept = await createSignInLink(deps, me, 'Ada');
    const stale = await createSignInLink(deps, me, 'Ada');
    const before = (await linkRows()).length;
    expect(await sweepExpiredSignInLinks({ db: deps.db, clock: later })).toBe(before);
    expect(await linkRows()).toEqual([]);
    // A fresh link survives a sweep at the current time.
    const fresh = await createSignInLink(deps, me, 'Ada');
    expect(await sweepExpiredSignInLinks(deps)).toBe(0);
    expect((await exchange(fresh.code)).status).toBe(200);
    expect((await exchange(kept.code)).status).toBe(401);
    expect((await exchange(stale.code)).status).toBe(401);
  });

  it('refuse a malformed code with 422 naming the field', async () => {
    const res = await exchange('short');
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('code');
  });

  it('rate-limit exchanges per client address: past the limit, 429 with Retry-After, even for a valid code', async () => {
    // A server of its own: the other tests' exchanges count against the same address.
    const own = await startTestServer();
    try {
      const link = await unwrap(own.client().POST('/api/desk/sign-in-links'));
      const post = (code: string) =>
        fetch(`${own.url}/api/desk/sign-in`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) });
      for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE; i++) expect((await post('A'.repeat(22))).status).toBe(401);
      const refused = await post(link.code);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // The refused attempt did not spend the code.
      expect(await own.running.deps.db.selectFrom('Setting').select('key').where('key', 'like', 'desk_sign_in:%').execute()).toHaveLength(1);
    } finally {
      await own.stop();
    }
  });
});

describe('cpa desk', () => {
  it("names the person after this computer's user by default", async () => {
    const made = await cpaIn(['desk', '--json'], { env: { CPA_BASE_URL: s.url, CPA_TOKEN: s.token } });
    expect(made.code, made.stderr).toBe(0);
    const session = await (await exchange((JSON.parse(made.stdout) as { code: string }).code)).json();
    expect((session as { name: string }).name).toBe(userInfo().username);
  });

  it('prints a fresh link for the named person on this service, and `cpa desk sign-in` spends its code once', async () => {
    const env = { CPA_BASE_URL: s.url, CPA_TOKEN: s.token };
    const made = await cpaIn(['desk', '--name', 'Ada'], { env });
    expect(made.code, made.stderr).toBe(0);
    const url = new RegExp(`^${s.url.replaceAll('.', '\\.')}/#/sign-in/([A-Za-z0-9_-]{22})$`, 'm').exec(made.stdout);
    expect(url, made.stdout).not.toBeNull();
    const first = await cpaIn(['desk', 'sign-in', url![1]!], { env: { CPA_BASE_URL: s.url } });
    expect(first.stdout.trim()).toMatch(/^cps_[0-9a-f]{64}$/);
    expect(first.stderr).toContain('Signed in as Ada');
    const again = await cpaIn(['desk', 'sign-in', url![1]!], { env: { CPA_BASE_URL: s.url } });
    expect(again.code).toBe(3); // authentication
    expect(again.stderr).toContain('used already');
  });
});
