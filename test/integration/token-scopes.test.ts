// Issue 32: named tokens with scopes. Each operation declares the scope it needs
// (`x-required-scope`); a token holds only the scopes it was given, and a call beyond them is
// 403 naming the missing scope. Revoked and expired tokens are 401 at once; the list never shows
// a secret. (The full-power first-launch token doing everything is what the rest of the suite proves.)
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey } from '../../clients/typescript/src/index.js';
import { addToken, findToken } from '../../server/store/workspaces.js';
import { ensureDesktopToken, generateToken, hashToken, TOKEN_FILE } from '../../server/services/tokens.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { seedArtifact, seedPosts, workspaceOf } from '../support/seed.js';
import { callWith, newPipeline, rawRequest, V1 } from '../support/api.js';

let s: TestServer;
let workspaceId: string;
let pipelineId: string;
beforeAll(async () => {
  s = await startTestServer();
  workspaceId = await workspaceOf(s.running.deps, s.token);
  pipelineId = (await newPipeline(s)).pipeline_id;
});
afterAll(async () => {
  await s?.stop();
});

type Reply = Awaited<ReturnType<typeof callWith>>;
const call = (method: string, path: string, token: string | null, body?: unknown): Promise<Reply> => callWith(s, method, path, token, body);

/** A named token made through the API by the full-power first-launch token. */
async function createToken(scopes: string[], extra: Record<string, unknown> = {}) {
  const r = await call('POST', `${V1}/tokens`, s.token, { name: `agent ${scopes.join('+')}`, scopes, ...extra });
  expect(r.status).toBe(201);
  return r.body as unknown as { token: { id: string; scopes: string[] }; secret: string };
}

function expectMissingScope(r: Reply, scope: string) {
  expect(r.status).toBe(403);
  expect(r.body.error?.code).toBe('forbidden');
  expect(r.body.error?.message).toContain(`'${scope}'`);
  expect(r.body.error?.suggested_action).toBe('request_scope');
}

async function seededArtifact(state: string) {
  const [postId] = await seedPosts(s.running.deps, { workspaceId, pipelineId, count: 1 });
  return { postId: postId!, artifact: await seedArtifact(s.running.deps, { workspaceId, pipelineId, postId: postId!, state }) };
}

describe('a token with the draft scope', () => {
  it('drafts, but is refused (403 naming the scope) publishing, approving, connecting, making tokens and sign-in links', async () => {
    const { secret, token } = await createToken(['read', 'draft']);
    expect(secret).toMatch(/^cpa_[0-9a-f]{64}$/);
    expect(token.scopes).toEqual(['read', 'draft']);

    const { postId, artifact } = await seededArtifact('review');
    const drafted = await call('POST', `${V1}/posts/${postId}/draft`, secret, { idempotency_key: newIdempotencyKey() });
    expect(drafted.status).toBe(202);
    const started = await call('POST', `${V1}/pipelines/from-intent`, secret, {
      handle: '@ada@mastodon.example',
      intent: 'Drafted by a scoped token',
      idempotency_key: newIdempotencyKey(),
    });
    expect(started.status).toBe(202);

    expectMissingScope(
      await call('POST', `${V1}/artifacts/${artifact.id}/transition`, secret, { to: 'ready', idempotency_key: newIdempotencyKey() }),
      'approve',
    );
    expectMissingScope(await call('POST', `${V1}/artifacts/${artifact.id}/publish`, secret, { idempotency_key: newIdempotencyKey() }), 'publish');
    expectMissingScope(
      await call('POST', `${V1}/accounts/connect`, secret, {
        platform: 'bluesky',
        handle: 'ada.example',
        credentials: {},
        idempotency_key: newIdempotencyKey(),
      }),
      'accounts',
    );
    expectMissingScope(await call('POST', `${V1}/tokens`, secret, { name: 'more power', scopes: ['admin'] }), 'admin');
    expectMissingScope(await call('POST', '/api/desk/sign-in-links', secret), 'admin');
    // Nothing happened: the artifact is as it was.
    const after = await call('GET', `${V1}/artifacts/${artifact.id}`, secret);
    expect(after.body.state).toBe('review');
  });
});

describe('a token with the admin scope', () => {
  it('mints a desk sign-in link, which signs a person in with a session of their own, never this token', async () => {
    const { secret } = await createToken(['read', 'admin']);
    const link = await call('POST', '/api/desk/sign-in-links', secret, { name: 'Ada' });
    expect(link.status).toBe(201);
    const session = await call('POST', '/api/desk/sign-in', null, { code: link.body.code });
    expect(session.status).toBe(200);
    expect(session.body.token).not.toBe(secret);
    expect(session.body.token).toMatch(/^cps_[0-9a-f]{64}$/);
    expect(session.body.name).toBe('Ada');
  });
});

describe('a token with the read scope', () => {
  it('reads, and nothing else', async () => {
    const { secret } = await createToken(['read']);
    const { artifact } = await seededArtifact('draft');
    expect((await call('GET', `${V1}/pipelines`, secret)).status).toBe(200);
    expect((await call('GET', `${V1}/artifacts/${artifact.id}`, secret)).status).toBe(200);
    expectMissingScope(
      await call('POST', `${V1}/pipelines/from-intent`, secret, { handle: '@ada@mastodon.example', intent: 'x', idempotency_key: newIdempotencyKey() }),
      'draft',
    );
    expectMissingScope(await call('PUT', `${V1}/artifacts/${artifact.id}/media`, secret, { media: [] }), 'draft');
    expectMissingScope(await call('GET', `${V1}/tokens`, secret), 'admin');
  });

  it('a refusal for a missing scope carries the rate-limit headers and counts, like any authenticated answer (found by the least-privilege contract pass)', async () => {
    const { secret } = await createToken(['read']);
    const first = await rawRequest(s, `${V1}/tokens`, { token: secret });
    expect(first.res.status).toBe(403);
    const second = await rawRequest(s, `${V1}/tokens`, { token: secret });
    expect(second.res.status).toBe(403);
    for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit', 'RateLimit-Policy'])
      expect([h, first.res.headers.get(h)]).toEqual([h, expect.any(String)]);
    expect(Number(second.res.headers.get('RateLimit-Remaining'))).toBe(Number(first.res.headers.get('RateLimit-Remaining')) - 1);
  });
});

describe('GET /tokens/current', () => {
  it('tells any token what it is — a token with draft alone, without read, too — and never its secret', async () => {
    const drafter = await createToken(['draft'], { expires_at: '2099-01-01T00:00:00.000Z' });
    const me = await call('GET', `${V1}/tokens/current`, drafter.secret);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ ...drafter.token, last_used_at: expect.any(String) });
    expect(me.body).toMatchObject({ scopes: ['draft'], expires_at: '2099-01-01T00:00:00.000Z', revoked_at: null });
    expect(JSON.stringify(me.body)).not.toContain(drafter.secret.slice(4));
    // The first-launch token holds every scope.
    expect((await call('GET', `${V1}/tokens/current`, s.token)).body).toMatchObject({
      name: null,
      scopes: ['read', 'draft', 'approve', 'publish', 'accounts', 'admin'],
    });
    expect((await call('GET', `${V1}/tokens/current`, null)).status).toBe(401);
    // Revoked, it is no token: 401.
    expect((await call('DELETE', `${V1}/tokens/${drafter.token.id}`, s.token)).status).toBe(200);
    expect((await call('GET', `${V1}/tokens/current`, drafter.secret)).status).toBe(401);
  });

  it("tells a person's desk session that it is one, named after the person, with every scope", async () => {
    const link = await call('POST', '/api/desk/sign-in-links', s.token, { name: 'Lin' });
    const session = await call('POST', '/api/desk/sign-in', null, { code: link.body.code });
    expect(session.status).toBe(200);
    const me = await call('GET', `${V1}/tokens/current`, session.body.token as string);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: session.body.id, kind: 'person', name: 'Lin', scopes: ['read', 'draft', 'approve', 'publish', 'accounts', 'admin'] });
  });
});

describe('revocation and expiry', () => {
  it('a revoked token is 401 at once, though it authenticated a moment ago (the token cache forgets it)', async () => {
    const { secret, token } = await createToken(['read']);
    expect((await call('GET', `${V1}/pipelines`, secret)).status).toBe(200);
    const revoked = await call('DELETE', `${V1}/tokens/${token.id}`, s.token);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    const refused = await call('GET', `${V1}/pipelines`, secret);
    expect(refused.status).toBe(401);
    expect(refused.body.error?.message).toContain('revoked');
  });

  it('a token of another workspace cannot be revoked (404)', async () => {
    expect((await call('DELETE', `${V1}/tokens/tok_not_in_this_workspace`, s.token)).status).toBe(404);
  });

  it('an expired token is 401', async () => {
    const secret = `cpa_${generateToken()}`;
    await addToken(s.running.deps.db, {
      id: s.running.deps.ids.id('tok'),
      workspaceId,
      tokenHash: hashToken(secret),
      scopes: 'read',
      expiresAt: new Date(s.running.deps.clock.now().getTime() - 1000),
    });
    const refused = await call('GET', `${V1}/pipelines`, secret);
    expect(refused.status).toBe(401);
    expect(refused.body.error?.message).toContain('expired');
  });

  it('a desktop token file holding a revoked token gets a new token on start', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cpa-revoked-'));
    const old = generateToken();
    const id = s.running.deps.ids.id('tok');
    await addToken(s.running.deps.db, { id, workspaceId, tokenHash: hashToken(old) });
    writeFileSync(path.join(dir, TOKEN_FILE), `${old}\n`);
    expect((await call('DELETE', `${V1}/tokens/${id}`, s.token)).status).toBe(200);
    const ensured = await ensureDesktopToken(s.running.deps, dir);
    expect(ensured.created).toBe('token');
    const fresh = readFileSync(path.join(dir, TOKEN_FILE), 'utf8').trim();
    expect(fresh).not.toBe(old);
    expect((await call('GET', `${V1}/pipelines`, fresh)).status).toBe(200);
  });

  it('an expiry must be in the future (422 naming the field)', async () => {
    const r = await call('POST', `${V1}/tokens`, s.token, { name: 'late', scopes: ['read'], expires_at: '2020-01-01T00:00:00Z' });
    expect(r.status).toBe(422);
    expect(r.body.error?.message).toContain('expires_at');
  });

  it('a token made with an expiry says it, and works until then', async () => {
    const at = new Date(s.running.deps.clock.now().getTime() + 3_600_000).toISOString();
    const { secret, token } = await createToken(['read'], { expires_at: at });
    expect((token as unknown as { expires_at: string }).expires_at).toBe(at);
    expect((await call('GET', `${V1}/pipelines`, secret)).status).toBe(200);
  });
});

describe('the list of tokens', () => {
  it('shows name, scopes and last use, never a secret nor its digest', async () => {
    const { secret, token } = await createToken(['read', 'draft', 'publish']);
    expect((await call('GET', `${V1}/pipelines`, secret)).status).toBe(200);
    const raw = await rawRequest(s, `${V1}/tokens?limit=100`);
    expect(raw.res.status).toBe(200);
    expect(raw.text).not.toContain(secret.slice(4));
    expect(raw.text).not.toContain(hashToken(secret));
    expect(raw.text).not.toContain(s.token);
    const listed = (raw.body as unknown as { data: Array<Record<string, unknown>> }).data.find((t) => t.id === token.id);
    expect(listed).toMatchObject({ name: 'agent read+draft+publish', scopes: ['read', 'draft', 'publish'], revoked_at: null, expires_at: null });
    expect(listed!.last_used_at).toEqual(expect.any(String));
    expect(Object.keys(listed!)).not.toContain('secret');
    // The first-launch token is listed too, with every scope and no name.
    const first = await findToken(s.running.deps.db, hashToken(s.token));
    expect((raw.body as unknown as { data: Array<Record<string, unknown>> }).data.find((t) => t.id === first!.id)).toMatchObject({
      name: null,
      scopes: ['read', 'draft', 'approve', 'publish', 'accounts', 'admin'],
    });
  });
});
