// X rotates its refresh token on every refresh: two instances of one PostgreSQL database that need
// a fresh access token at the same moment must refresh once between them (the second refresh,
// with the spent token, would be refused and the account lost). Skipped on SQLite (one instance
// per database there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { V1 } from '../support/api.js';
import { testDbKind } from '../support/database.js';
import { allowRedirect, startXAuthFake, type OAuthFake } from '../support/oauth-fakes.js';
import { consent } from '../support/oauth-server.js';
import { startTestServer, type TestServer } from '../support/server.js';

const onPg = testDbKind() === 'postgresql';

describe.skipIf(!onPg)('X sign-in refreshed by two instances of one PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;
  let x: OAuthFake;

  beforeAll(async () => {
    // Tokens from signing in have 5 minutes left (due for a refresh); refreshed ones two hours.
    // A slow token endpoint: a second refresh while the first is under way would come with the spent token.
    x = await startXAuthFake({ over: { accessTtlSeconds: 300, refreshedTtlSeconds: 7200, refreshHoldMs: 1000 } });
    a = await startTestServer({ env: x.env });
    b = await startTestServer({ env: x.env, db: a.db });
    allowRedirect(x, `${a.url}/oauth/callback`);
  });
  afterAll(async () => {
    await b?.running.stop();
    await a?.stop();
    await x?.fake.close();
  });

  const check = (t: TestServer, id: string) => unwrap(t.client().POST(`${V1}/accounts/check/{id}`, { params: { path: { id } } }));

  it('refreshes once when both need the token at the same moment; both then use the winner’s token', async () => {
    const started = await unwrap(a.client().POST(`${V1}/accounts/authorizations`, { body: { platform: 'x', idempotency_key: newIdempotencyKey() } }));
    const back = await fetch(await consent(started.authorization_url, x.fake.caFile));
    expect(back.status).toBe(200);
    const { account } = await unwrap(a.client().GET(`${V1}/accounts/authorizations/{id}`, { params: { path: { id: started.id } } }));
    const id = account!.id;
    const before = x.meCalls.length;

    const [ra, rb] = await Promise.all([check(a, id), check(b, id)]);
    expect(ra.status).toBe('active');
    expect(rb.status).toBe('active');
    // Counted at the fake's token endpoint: one refresh, none refused.
    expect(x.oauth.refreshes).toBe(1);
    expect(x.oauth.refusedRefreshes).toBe(0);
    const used = x.meCalls.slice(before);
    expect(used).toHaveLength(2);
    expect(used[0]).toBe(used[1]);
    expect(x.oauth.accessTokens.get(used[0]!)!.expiresAt).toBeGreaterThan(Date.now() + 3600_000);

    // Both keep working with it, without another refresh.
    await Promise.all([check(a, id), check(b, id)]);
    expect(x.oauth.refreshes).toBe(1);
  });
});
