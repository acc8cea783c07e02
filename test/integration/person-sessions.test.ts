// Issue 32, "people are not agents" and rotation: signing in to the review desk makes a person's
// session of its own (`cps_`, kind `person`, named after the person, every scope, 12 hours idle,
// renewed while used, at most 30 days), never the agent token; only a token with `admin` or a
// person may make a sign-in link (the MCP tool too); a session signs out by revoking itself; and
// rotating a token keeps the old one working for the stated overlap, then 401 `expired`.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PERSON_NAME } from '../../server/services/desk.js';
import {
  authenticate,
  ensureDesktopToken,
  generateToken,
  hashToken,
  LAST_USED_RESOLUTION_MS,
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  TOKEN_FILE,
} from '../../server/services/tokens.js';
import { addToken, findToken } from '../../server/store/workspaces.js';
import { workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { callWith, V1 } from '../support/api.js';

let s: TestServer;
const mcpClients: Client[] = [];
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await Promise.all(mcpClients.map((c) => c.close().catch(() => {})));
  await s?.stop();
});

type Reply = Awaited<ReturnType<typeof callWith>>;
const call = (method: string, path: string, token: string | null, body?: unknown): Promise<Reply> => callWith(s, method, path, token, body);

interface TokenBody {
  id: string;
  kind: string;
  name: string | null;
  scopes: string[];
  expires_at: string | null;
  revoked_at: string | null;
}

async function createToken(scopes: string[], extra: Record<string, unknown> = {}) {
  const r = await call('POST', `${V1}/tokens`, s.token, { name: `agent ${scopes.join('+')}`, scopes, ...extra });
  expect(r.status).toBe(201);
  return r.body as unknown as { token: TokenBody; secret: string };
}

/** Signs a person in the way the desk does: a link made with `token`, then its exchange. */
async function signIn(token: string, body?: unknown): Promise<{ token: string; id: string; name: string; expires_at: string }> {
  const link = await call('POST', '/api/desk/sign-in-links', token, body);
  expect(link.status).toBe(201);
  const session = await call('POST', '/api/desk/sign-in', null, { code: link.body.code });
  expect(session.status).toBe(200);
  return session.body as unknown as { token: string; id: string; name: string; expires_at: string };
}

const whoami = async (token: string) => (await call('GET', `${V1}/pipelines/pl_none`, token)).status; // 404: authenticated

describe('signing in to the desk', () => {
  it("makes a person's session named after the person, never the token that made the link", async () => {
    const before = Date.now();
    const session = await signIn(s.token, { name: 'Ada' });
    expect(session.token).toMatch(/^cps_[0-9a-f]{64}$/);
    expect(session.token).not.toBe(s.token);
    expect(session.name).toBe('Ada');
    const expires = Date.parse(session.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + SESSION_IDLE_MS - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + SESSION_IDLE_MS + 1000);
    // It works, holds every scope, and is listed as a person's session.
    expect(await whoami(session.token)).toBe(404);
    const people = await call('GET', `${V1}/tokens?kind=person`, s.token);
    const listed = (people.body.data as TokenBody[]).find((t) => t.id === session.id)!;
    expect(listed).toMatchObject({ kind: 'person', name: 'Ada', scopes: ['read', 'draft', 'approve', 'publish', 'accounts', 'admin'], revoked_at: null });
    expect((people.body.data as TokenBody[]).every((t) => t.kind === 'person')).toBe(true);
    const agents = await call('GET', `${V1}/tokens?kind=agent`, s.token);
    expect((agents.body.data as TokenBody[]).map((t) => t.id)).not.toContain(session.id);
    // Nothing stored gives the secret back: only its digest.
    expect((await findToken(s.running.deps.db, hashToken(session.token)))!.kind).toBe('person');
  });

  it('names the person after the person who made the link, else the default; a blank name is 422 naming it', async () => {
    const byAgent = await signIn(s.token);
    expect(byAgent.name).toBe(DEFAULT_PERSON_NAME);
    const ada = await signIn(s.token, { name: 'Ada Lovelace' });
    // A person already signed in makes a link for themselves on another device.
    const again = await signIn(ada.token);
    expect(again.name).toBe('Ada Lovelace');
    expect(again.token).not.toBe(ada.token);
    const blank = await call('POST', '/api/desk/sign-in-links', s.token, { name: '   ' });
    expect(blank.status).toBe(422);
    expect(blank.body.error?.message).toContain('name');
  });

  it('the session is renewed while used, at most once a minute, and ends 12 hours unused and 30 days after sign-in', async () => {
    const session = await signIn(s.token, { name: 'Grace' });
    const row = (await findToken(s.running.deps.db, hashToken(session.token)))!;
    const t0 = row.createdAt.getTime();
    const at = (ms: number) => ({ db: s.running.deps.db, clock: { now: () => new Date(t0 + ms) } });
    const expiryOf = async () => (await findToken(s.running.deps.db, hashToken(session.token)))!.expiresAt!.getTime();

    // Used 11 hours later: it lives until 12 hours after that use.
    const used = await authenticate(at(11 * 3600_000), session.token);
    expect(used.ok).toBe(true);
    expect(await expiryOf()).toBe(t0 + 23 * 3600_000);
    // Within the minute: no write.
    await authenticate(at(11 * 3600_000 + LAST_USED_RESOLUTION_MS / 2), session.token);
    expect(await expiryOf()).toBe(t0 + 23 * 3600_000);
    // Past 12 hours after sign-in it still works (it was used); 12 hours after the last use it has ended.
    expect((await authenticate(at(22 * 3600_000), session.token)).ok).toBe(true);
    expect(await authenticate(at(34 * 3600_000 + 1), session.token)).toEqual({ ok: false, reason: 'expired' });

    // Another session used every 11 hours still ends 30 days after sign-in.
    const busy = await signIn(s.token, { name: 'Grace' });
    const b0 = (await findToken(s.running.deps.db, hashToken(busy.token)))!.createdAt.getTime();
    const atB = (ms: number) => ({ db: s.running.deps.db, clock: { now: () => new Date(b0 + ms) } });
    let t = 0;
    while (t + 11 * 3600_000 < SESSION_MAX_MS) {
      t += 11 * 3600_000;
      expect((await authenticate(atB(t), busy.token)).ok).toBe(true);
    }
    expect((await findToken(s.running.deps.db, hashToken(busy.token)))!.expiresAt!.getTime()).toBe(b0 + SESSION_MAX_MS);
    expect(await authenticate(atB(SESSION_MAX_MS), busy.token)).toEqual({ ok: false, reason: 'expired' });
  });

  it('signs out by revoking its own session: 401 from the next request on', async () => {
    const session = await signIn(s.token, { name: 'Ada' });
    expect(await whoami(session.token)).toBe(404);
    const out = await call('DELETE', `${V1}/tokens/${session.id}`, session.token);
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ kind: 'person', name: 'Ada' });
    expect(out.body.revoked_at).not.toBeNull();
    const after = await call('GET', `${V1}/pipelines/pl_none`, session.token);
    expect(after.status).toBe(401);
    expect(after.body.error?.message).toContain('revoked');
  });
});

describe('who may make a sign-in link', () => {
  it('a token without admin may not (403 naming the scope), through REST and the MCP tool; a person session may', async () => {
    const { secret } = await createToken(['read', 'draft', 'approve', 'publish', 'accounts']);
    const refused = await call('POST', '/api/desk/sign-in-links', secret, { name: 'Mallory' });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toContain("'admin'");

    const mcp = new Client({ name: 'sessions-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${secret}` } } }));
    mcpClients.push(mcp);
    // Refused either way: a tool the token may not see, or a call answered 403.
    const outcome = await mcp.callTool({ name: 'create_desk_sign_in_link', arguments: { name: 'Mallory' } }).then(
      (r) => r as { isError?: boolean; content: Array<{ text?: string }> },
      (err: unknown) => ({ isError: true, content: [{ text: String(err) }] }),
    );
    expect(outcome.isError).toBe(true);
    expect(outcome.content[0]!.text).toMatch(/forbidden|admin|unknown tool/i);
    // No link was made for anyone: every link made so far was exchanged or is someone else's.

    const person = await signIn(s.token, { name: 'Ada' });
    const made = await call('POST', '/api/desk/sign-in-links', person.token, { name: 'Ada' });
    expect(made.status).toBe(201);
  });
});

describe('rotating a token', () => {
  it('answers a new token with the same name, scopes and expiry; the old one works through the overlap', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86400_000).toISOString();
    const old = await createToken(['read', 'draft'], { expires_at: expiresAt });
    const before = Date.now();
    const r = await call('POST', `${V1}/tokens/${old.token.id}/rotate`, s.token, { overlap_seconds: 3600 });
    expect(r.status).toBe(201);
    const rotated = r.body as unknown as { token: TokenBody; secret: string; previous: TokenBody };
    expect(rotated.secret).toMatch(/^cpa_[0-9a-f]{64}$/);
    expect(rotated.token).toMatchObject({ kind: 'agent', name: old.token.name, scopes: ['read', 'draft'], expires_at: expiresAt, revoked_at: null });
    expect(rotated.token.id).not.toBe(old.token.id);
    expect(rotated.previous.id).toBe(old.token.id);
    const end = Date.parse(rotated.previous.expires_at!);
    expect(end).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(end).toBeLessThanOrEqual(Date.now() + 3600_000);
    // Both work now.
    expect(await whoami(rotated.secret)).toBe(404);
    expect(await whoami(old.secret)).toBe(404);
    // After the overlap the old one is expired.
    expect(await authenticate({ db: s.running.deps.db, clock: { now: () => new Date(end + 1) } }, old.secret)).toEqual({ ok: false, reason: 'expired' });
    expect((await authenticate({ db: s.running.deps.db, clock: { now: () => new Date(end + 1) } }, rotated.secret)).ok).toBe(true);
  });

  it('with no overlap, the old token is 401 expired at once, though it authenticated a moment ago', async () => {
    const old = await createToken(['read']);
    expect(await whoami(old.secret)).toBe(404); // now in the token cache
    const r = await call('POST', `${V1}/tokens/${old.token.id}/rotate`, s.token, { overlap_seconds: 0 });
    expect(r.status).toBe(201);
    const gone = await call('GET', `${V1}/pipelines/pl_none`, old.secret);
    expect(gone.status).toBe(401);
    expect(gone.body.error?.message).toContain('expired');
    expect(await whoami((r.body as unknown as { secret: string }).secret)).toBe(404);
  });

  it('defaults to 24 hours of overlap, never past the old expiry', async () => {
    const soon = new Date(Date.now() + 3600_000).toISOString();
    const a = await createToken(['read']);
    const b = await createToken(['read'], { expires_at: soon });
    const ra = await call('POST', `${V1}/tokens/${a.token.id}/rotate`, s.token, {});
    const rb = await call('POST', `${V1}/tokens/${b.token.id}/rotate`, s.token, { overlap_seconds: 86400 });
    const endA = Date.parse((ra.body.previous as TokenBody).expires_at!);
    expect(Math.abs(endA - (Date.now() + 86400_000))).toBeLessThan(60_000);
    expect((rb.body.previous as TokenBody).expires_at).toBe(soon);
  });

  it('a desktop token file whose token was rotated gets a working token on start once the overlap is over', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cpa-rotated-'));
    const old = generateToken();
    const id = s.running.deps.ids.id('tok');
    await addToken(s.running.deps.db, { id, workspaceId: await workspaceOf(s.running.deps, s.token), tokenHash: hashToken(old) });
    writeFileSync(path.join(dir, TOKEN_FILE), `${old}\n`);
    expect((await call('POST', `${V1}/tokens/${id}/rotate`, s.token, { overlap_seconds: 3600 })).status).toBe(201);
    expect((await ensureDesktopToken(s.running.deps, dir)).created).toBeNull(); // within the overlap it still works
    const later = { ...s.running.deps, clock: { now: () => new Date(Date.now() + 3600_000 + 1000) } };
    expect((await ensureDesktopToken(later, dir)).created).toBe('token');
    const fresh = readFileSync(path.join(dir, TOKEN_FILE), 'utf8').trim();
    expect(fresh).not.toBe(old);
    expect(await whoami(fresh)).toBe(404);
  });

  it('refuses what cannot be rotated: an overlap past 7 days (422), a revoked token or a session (409), another workspace (404), without admin (403)', async () => {
    const t = await createToken(['read']);
    const long = await call('POST', `${V1}/tokens/${t.token.id}/rotate`, s.token, { overlap_seconds: 7 * 86400 + 1 });
    expect(long.status).toBe(422);
    expect(long.body.error?.message).toContain('overlap_seconds');
    const negative = await call('POST', `${V1}/tokens/${t.token.id}/rotate`, s.token, { overlap_seconds: -1 });
    expect(negative.status).toBe(422);

    expect((await call('DELETE', `${V1}/tokens/${t.token.id}`, s.token)).status).toBe(200);
    const revoked = await call('POST', `${V1}/tokens/${t.token.id}/rotate`, s.token, {});
    expect(revoked.status).toBe(409);
    expect(revoked.body.error?.code).toBe('state_conflict');

    const person = await signIn(s.token, { name: 'Ada' });
    const session = await call('POST', `${V1}/tokens/${person.id}/rotate`, s.token, {});
    expect(session.status).toBe(409);
    expect(session.body.error?.message).toContain('sign');

    const other = await s.newWorkspace('Rotation elsewhere');
    expect((await call('POST', `${V1}/tokens/${(await createToken(['read'])).token.id}/rotate`, other, {})).status).toBe(404);

    const drafter = await createToken(['read', 'draft']);
    const noAdmin = await call('POST', `${V1}/tokens/${drafter.token.id}/rotate`, drafter.secret, {});
    expect(noAdmin.status).toBe(403);
    expect(noAdmin.body.error?.message).toContain("'admin'");
  });
});
