// 429 past the quota, and an instance with no token yet (team host before provisioning).
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { createWorkspace } from '../../server/services/tokens.js';
import { rawRequest, V1 } from '../support/api.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.stop();
  s = undefined;
});

describe('rate limiting', () => {
  it('answers 429 rate_limited with Retry-After and RateLimit-Remaining 0 past the quota, per token', async () => {
    s = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
    const get = async (token: string) => (await rawRequest(s!, `${V1}/pipelines/pl_none`, { token })).res;
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await get(s.token);
      expect(res.status).toBe(404);
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const { res: limited, body } = await rawRequest(s, `${V1}/pipelines/pl_none`);
    expect(limited.status).toBe(429);
    expect(body.error?.code).toBe('rate_limited');
    const retry = Number(limited.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('ratelimit-reset')).toBe(String(retry));
    expect(limited.headers.get('ratelimit-limit')).toBe('5');
    // another token has its own quota
    const other = await s.newWorkspace();
    expect((await get(other)).status).toBe(404);
  });

  it('the typed client retries a 429 after Retry-After, a bounded number of times', async () => {
    s = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1' } });
    const waits: number[] = [];
    const client = s.client(s.token, { maxRetries: 2, sleep: async (ms) => void waits.push(ms) });
    await client.GET(`${V1}/pipelines/{id}`, { params: { path: { id: 'pl_a' } } });
    const r = await client.GET(`${V1}/pipelines/{id}`, { params: { path: { id: 'pl_a' } } });
    expect(r.response.status).toBe(429);
    expect(waits).toHaveLength(2);
    for (const w of waits) expect(w).toBeGreaterThanOrEqual(1000);
  });
});

describe('a team host before any workspace exists', () => {
  it('answers 401 unauthorized saying no token was created yet, then accepts a provisioned token', async () => {
    s = await startTestServer({ env: { INSTANCE_MODE: 'team' } });
    const { existsSync } = await import('node:fs');
    expect(existsSync(`${s.db.dataDir}/agent-token`)).toBe(false);
    const { res, body } = await rawRequest(s, `${V1}/pipelines/pl_x`, { token: 'a'.repeat(64) });
    expect(res.status).toBe(401);
    expect(body.error?.code).toBe('unauthorized');
    expect(body.error?.message).toMatch(/no agent token has been created/i);
    const { token } = await createWorkspace(s.running.deps, 'Team A');
    const ok = (await rawRequest(s, `${V1}/pipelines/pl_x`, { token })).res;
    expect(ok.status).toBe(404);
  });
});

describe('restart', () => {
  it('keeps the workspace and token across restarts and reissues a token when the file is lost', async () => {
    const first = await startTestServer();
    const db = first.db;
    const token = first.token;
    await first.running.stop();
    const { rmSync, readFileSync } = await import('node:fs');
    s = await startTestServer({ db });
    expect(s.token).toBe(token);
    await s.running.stop();
    rmSync(`${db.dataDir}/agent-token`);
    s = await startTestServer({ db });
    const fresh = readFileSync(`${db.dataDir}/agent-token`, 'utf8').trim();
    expect(fresh).not.toBe(token);
    const { res } = await rawRequest(s, `${V1}/pipelines/pl_x`, { token: fresh });
    expect(res.status).toBe(404);
    await s.running.stop();
    s = undefined;
    await db.drop();
  });
});
