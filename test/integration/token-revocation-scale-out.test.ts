// Issue 32: a token that ends early (revoked, rotated without overlap, a desk session signed out)
// is 401 at once on every instance of one PostgreSQL database, though each instance caches the
// tokens that authenticated (services/token-cache.ts): the instance that ends it tells the others
// through the events channel (NOTIFY), and an instance that cannot hear them (its LISTEN
// connection is down) trusts nothing it cached until it hears again. Skipped on SQLite (one
// instance per database there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, V1 } from '../support/api.js';
import { testDbKind } from '../support/database.js';
import { deleteRows } from '../support/rows.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { hashToken } from '../../server/services/tokens.js';

const onPg = testDbKind() === 'postgresql';

describe.skipIf(!onPg)('ending a token on one instance of a PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    a = await startTestServer();
    b = await startTestServer({ db: a.db });
  });
  afterAll(async () => {
    await b?.running.stop();
    await a?.stop();
  });

  const status = async (t: TestServer, token: string) => (await rawRequest(t, `${V1}/pipelines/pl_none`, { token })).res.status; // 404: authenticated
  async function post(t: TestServer, path: string, body: unknown, token: string | null = t.token) {
    const r = await rawRequest(t, path, { method: 'POST', token, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect(r.res.status, r.text).toBeLessThan(300);
    return r.body as unknown as Record<string, unknown>;
  }
  const newToken = async () => (await post(a, `${V1}/tokens`, { name: 'scale-out', scopes: ['read'] })) as { token: { id: string }; secret: string };

  it('B trusts its cache while it hears A (a row gone behind its back still works there)', async () => {
    const t = await newToken();
    expect(await status(b, t.secret)).toBe(404);
    await deleteRows(a.running.deps.db, 'AgentToken', { tokenHash: hashToken(t.secret) });
    // Nobody announced anything: B's cached answer stands, which is what the tests below overcome.
    expect(await status(b, t.secret)).toBe(404);
  });

  it('revoked on A: the very next request on B is 401', async () => {
    const t = await newToken();
    expect(await status(b, t.secret)).toBe(404); // cached on B
    const revoked = await rawRequest(a, `${V1}/tokens/${t.token.id}`, { method: 'DELETE' });
    expect(revoked.res.status).toBe(200);
    expect(await status(b, t.secret)).toBe(401);
  });

  it('rotated on A without overlap: the old token is 401 on B at once, the new one works there', async () => {
    const t = await newToken();
    expect(await status(b, t.secret)).toBe(404);
    const rotated = (await post(a, `${V1}/tokens/${t.token.id}/rotate`, { overlap_seconds: 0 })) as { secret: string };
    expect(await status(b, t.secret)).toBe(401);
    expect(await status(b, rotated.secret)).toBe(404);
  });

  it('a desk session signed out on A is 401 on B at once', async () => {
    const link = (await post(a, '/api/desk/sign-in-links', { name: 'Ada' })) as { code: string };
    const session = (await post(a, '/api/desk/sign-in', { code: link.code }, null)) as { token: string; id: string };
    expect(await status(b, session.token)).toBe(404);
    const out = await rawRequest(a, `${V1}/tokens/${session.id}`, { method: 'DELETE', token: session.token });
    expect(out.res.status).toBe(200);
    expect(await status(b, session.token)).toBe(401);
  });

  it('while B cannot hear A, B trusts nothing it cached; once it hears again it starts afresh', async () => {
    const t = await newToken();
    expect(await status(b, t.secret)).toBe(404); // cached on B
    const hub = b.running.hub as unknown as { listenClient: { end(): Promise<void> } | null; hearsOtherInstances: boolean };
    await hub.listenClient!.end();
    await expect.poll(() => hub.hearsOtherInstances).toBe(false);
    // Gone without an announcement B could hear: B asks the database.
    await deleteRows(a.running.deps.db, 'AgentToken', { tokenHash: hashToken(t.secret) });
    expect(await status(b, t.secret)).toBe(401);
    // It reconnects, and its cache works again.
    await expect.poll(() => hub.hearsOtherInstances, { timeout: 10_000 }).toBe(true);
    const u = await newToken();
    expect(await status(b, u.secret)).toBe(404);
    await deleteRows(a.running.deps.db, 'AgentToken', { tokenHash: hashToken(u.secret) });
    expect(await status(b, u.secret)).toBe(404);
  });
});
