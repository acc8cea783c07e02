// The bearer check remembers tokens that authenticated (TOKEN_CACHE_MS, services/token-cache.ts)
// so that a read costs one query instead of two (BENCHMARKS.md), never remembers a failure, and
// forgets a token that ended early (revoked, rotated, signed out) at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToken } from '../../server/store/workspaces.js';
import { generateToken, hashToken } from '../../server/services/tokens.js';
import { TokenCache } from '../../server/services/token-cache.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { workspaceOf } from '../support/seed.js';
import { deleteRows } from '../support/rows.js';
import { rawRequest, V1 } from '../support/api.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

const get = async (token: string) => (await rawRequest(s, `${V1}/pipelines/pl_none`, { token })).res.status;

describe('the token cache of the bearer check', () => {
  it('trusts a token that authenticated without asking the database again', async () => {
    const token = generateToken();
    await addToken(s.running.deps.db, {
      id: s.running.deps.ids.id('tok'),
      workspaceId: await workspaceOf(s.running.deps, s.token),
      tokenHash: hashToken(token),
    });
    expect(await get(token)).toBe(404); // authenticated: the pipeline is what is missing
    // Gone from the database, yet still known for TOKEN_CACHE_MS: the second request did not look it up.
    await deleteRows(s.running.deps.db, 'AgentToken', { tokenHash: hashToken(token) });
    expect(await get(token)).toBe(404);
  });

  it('does not remember a refusal: a token added after one works at once', async () => {
    const token = generateToken();
    expect(await get(token)).toBe(401);
    await addToken(s.running.deps.db, {
      id: s.running.deps.ids.id('tok'),
      workspaceId: await workspaceOf(s.running.deps, s.token),
      tokenHash: hashToken(token),
    });
    expect(await get(token)).toBe(404);
  });

  it('forgets a revoked token at once, though it authenticated a moment ago', async () => {
    const made = await rawRequest(s, `${V1}/tokens`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'cached', scopes: ['read'] }),
    });
    const { token, secret } = made.body as unknown as { token: { id: string }; secret: string };
    expect(await get(secret)).toBe(404); // cached now
    await rawRequest(s, `${V1}/tokens/${token.id}`, { method: 'DELETE' });
    expect(await get(secret)).toBe(401);
  });

  it('trusts nothing cached while the instance could not hear of tokens ended elsewhere', async () => {
    const trusted = { value: true };
    const cache = new TokenCache(() => trusted.value);
    const ok = { ok: true as const, caller: { workspaceId: 'ws', tokenId: 'tok_x', scopes: [] }, scopes: [], expiresAt: null };
    cache.set('digest', ok, 0);
    expect(cache.get('digest', 1)).toBe(ok);
    trusted.value = false;
    expect(cache.get('digest', 1)).toBeNull();
    trusted.value = true;
    cache.forget('tok_x');
    expect(cache.get('digest', 1)).toBeNull();
    // Never past the token's expiry.
    cache.set('digest', { ...ok, expiresAt: new Date(10) }, 0);
    expect(cache.get('digest', 9)).not.toBeNull();
    expect(cache.get('digest', 10)).toBeNull();
    // An answer read before a token was forgotten (a revocation announced meanwhile) is not kept.
    const mark = cache.mark;
    cache.forget('tok_other');
    cache.set('late', ok, 0, mark);
    expect(cache.get('late', 1)).toBeNull();
  });
});
