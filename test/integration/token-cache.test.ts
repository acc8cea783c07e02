// The bearer check remembers tokens that authenticated (TOKEN_CACHE_MS, server/http/auth.ts) so
// that a read costs one query instead of two (BENCHMARKS.md), and never remembers a failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToken } from '../../server/store/workspaces.js';
import { generateToken, hashToken } from '../../server/services/tokens.js';
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
});
