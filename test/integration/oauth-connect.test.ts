// Connecting accounts by signing in (POST /accounts/authorizations, GET /oauth/callback): the
// PKCE flow of Mastodon, X, LinkedIn and Threads through their fakes' consent pages, the state's
// rules (single use, 10 minutes, bound to the workspace), the grant sealed at rest, the refresh
// of X's rotating tokens and of Threads' long-lived one, a refused refresh as "sign in again" in
// the inbox, LinkedIn's expiry warned a week before, and the settings a platform lacks.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import type { components } from '../../generated/api.js';
import { newPipeline, V1 } from '../support/api.js';
import { refusal } from '../support/errors.js';

/** The call's refusal: its status, code, and a message matching `message`. */
async function refused(call: Promise<{ data?: unknown; error?: unknown }>, status: number, code: string, message?: RegExp) {
  const err = await refusal(unwrap(call as Parameters<typeof unwrap>[0]));
  expect({ status: err.status, code: err.code }).toEqual({ status, code });
  if (message) expect(err.message).toMatch(message);
  return err;
}
import { outboundEnvFor } from '../support/https-fake.js';
import { allowRedirect, startLinkedInAuthFake, startThreadsAuthFake, startXAuthFake, type OAuthFake, type ThreadsAuthFake } from '../support/oauth-fakes.js';
import { consent, httpsCall } from '../support/oauth-server.js';
import { startMastodonFake, type MastodonFake } from '../support/platforms.js';
import { findRow, findRows, updateRows } from '../support/rows.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { sealedCredentials, unsealCredentials } from '../../server/services/account-secrets.js';

type Authorization = components['schemas']['AccountAuthorization'];

let s: TestServer;
let bare: TestServer;
let mastodon: MastodonFake;
let x: OAuthFake;
let linkedin: OAuthFake;
let threads: ThreadsAuthFake;

beforeAll(async () => {
  mastodon = await startMastodonFake();
  // X's first access token has 5 minutes left: the first use refreshes it (the service refreshes with < 10 minutes left).
  x = await startXAuthFake({ over: { accessTtlSeconds: 300, refreshedTtlSeconds: 7200 } });
  linkedin = await startLinkedInAuthFake();
  // Threads' long-lived token with 6 days left: inside the week before expiry in which the service refreshes it.
  threads = await startThreadsAuthFake({ longLivedSeconds: 6 * 86_400 });
  const outbound = outboundEnvFor(mastodon.fake, x.fake, linkedin.fake, threads.fake);
  s = await startTestServer({ env: { ...x.env, ...linkedin.env, ...threads.env, ...outbound } });
  bare = await startTestServer({ env: outbound });
  const redirect = `${s.url}/oauth/callback`;
  for (const f of [x, linkedin, threads]) allowRedirect(f, redirect);
});

afterAll(async () => {
  await s?.stop();
  await bare?.stop();
  for (const f of [mastodon?.fake, x?.fake, linkedin?.fake, threads?.fake]) await f?.close();
});

const start = (t: TestServer, body: Omit<components['schemas']['StartAuthorizationRequest'], 'idempotency_key'>, token?: string) =>
  t.client(token).POST(`${V1}/accounts/authorizations`, { body: { ...body, idempotency_key: newIdempotencyKey() } });
const status = (t: TestServer, id: string, token?: string) => t.client(token).GET(`${V1}/accounts/authorizations/{id}`, { params: { path: { id } } });
const check = (t: TestServer, id: string) => unwrap(t.client().POST(`${V1}/accounts/check/{id}`, { params: { path: { id } } }));

/** The browser coming back to the service's callback. */
async function callback(location: string): Promise<{ status: number; body: string; csp: string | null }> {
  const res = await fetch(location, { redirect: 'manual' });
  return { status: res.status, body: await res.text(), csp: res.headers.get('content-security-policy') };
}

/** Start, approve on the fake's consent page, come back: the authorization as the service then tells it. */
async function signIn(
  t: TestServer,
  body: Parameters<typeof start>[1],
  caFile: string,
): Promise<{ started: Authorization; done: Authorization; page: string }> {
  const started = await unwrap(start(t, body));
  const back = await callback(await consent(started.authorization_url, caFile));
  expect(back.status, back.body).toBe(200);
  const done = await unwrap(status(t, started.id));
  return { started, done, page: back.body };
}

describe('Mastodon', () => {
  it('registers the service on the instance once, signs in with PKCE S256 and stores the account with its token sealed', async () => {
    const { started, done, page } = await signIn(s, { platform: 'mastodon', handle: mastodon.handle }, mastodon.fake.caFile);
    const url = new URL(started.authorization_url);
    expect(url.origin + url.pathname).toBe(`${mastodon.fake.url}/oauth/authorize`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('scope')).toBe('read write:statuses write:media');
    expect(url.searchParams.get('redirect_uri')).toBe(`${s.url}/oauth/callback`);
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(started.authorization_url).not.toContain('code_verifier');
    expect(page).toContain(`Connected ${mastodon.handle}`);
    expect(done).toMatchObject({
      status: 'connected',
      failure: null,
      account: { platform: 'mastodon', handle: mastodon.handle, connected_by: 'sign_in', status: 'active' },
    });
    expect(mastodon.state.appsRegistered).toBe(1);
    const row = await findRow(s.running.deps.db, 'Account', { id: done.account!.id });
    expect(row.credentials).toMatch(/^v1\./);
    const issued = [...mastodon.state.oauth.accessTokens.keys()];
    expect(issued).toHaveLength(1);
    expect(row.credentials).not.toContain(issued[0]);
    // The state is kept hashed, the verifier sealed and then spent.
    const stored = await findRow(s.running.deps.db, 'OAuthAuthorization', { id: started.id });
    expect(stored.stateHash).not.toBe(url.searchParams.get('state'));
    expect(stored.verifier).toBe('');

    // The account works: its token is the one the instance issued.
    expect(await check(s, done.account!.id)).toMatchObject({ status: 'active' });
    // A second sign-in on the same instance reuses the registration, and renews the same account.
    const again = await signIn(s, { platform: 'mastodon', handle: mastodon.fake.host }, mastodon.fake.caFile);
    expect(mastodon.state.appsRegistered).toBe(1);
    expect(again.done.account?.id).toBe(done.account!.id);
    // The record: the token that started each sign-in connected the account (not the browser that came back).
    const record = await unwrap(s.client().GET(`${V1}/audit-events`, { params: { query: { subject_id: done.account!.id, action: 'account.connected' } } }));
    expect(record.data.map((e) => [e.actor.kind, e.actor.name, e.detail?.result, e.detail?.authorization_id])).toEqual([
      ['agent', 'first-launch token', 'rotated', again.started.id],
      ['agent', 'first-launch token', 'added', started.id],
    ]);
  });

  it('spends the state once: the same callback again changes nothing', async () => {
    const started = await unwrap(start(s, { platform: 'mastodon', handle: mastodon.handle }));
    const location = await consent(started.authorization_url, mastodon.fake.caFile);
    expect((await callback(location)).status).toBe(200);
    const replay = await callback(location);
    expect(replay.status).toBe(400);
    expect(replay.body).toContain('not valid');
    expect(replay.csp).toContain("default-src 'none'");
    expect(await unwrap(status(s, started.id))).toMatchObject({ status: 'connected' });
  });

  it('refuses a state past its 10 minutes, and says the authorization expired', async () => {
    const started = await unwrap(start(s, { platform: 'mastodon', handle: mastodon.handle }));
    expect(Date.parse(started.expires_at) - Date.parse(started.created_at)).toBe(10 * 60 * 1000);
    await updateRows(s.running.deps.db, 'OAuthAuthorization', { id: started.id }, { expiresAt: new Date(Date.now() - 1000) });
    const back = await callback(await consent(started.authorization_url, mastodon.fake.caFile));
    expect(back.status).toBe(400);
    expect(await unwrap(status(s, started.id))).toMatchObject({ status: 'failed', failure: 'expired', account: null });
  });

  it('records a refusal on the consent page as failed (denied)', async () => {
    const started = await unwrap(start(s, { platform: 'mastodon', handle: mastodon.handle }));
    const back = await callback(await consent(started.authorization_url, mastodon.fake.caFile, 'deny'));
    expect(back.status).toBe(400);
    expect(await unwrap(status(s, started.id))).toMatchObject({ status: 'failed', failure: 'denied: access_denied' });
  });

  it('binds the authorization to its workspace: another workspace cannot follow it', async () => {
    const other = await s.newWorkspace('Other');
    const started = await unwrap(start(s, { platform: 'mastodon', handle: mastodon.handle }));
    await refused(status(s, started.id, other), 404, 'not_found');
    const back = await callback(await consent(started.authorization_url, mastodon.fake.caFile));
    expect(back.status).toBe(200);
    const otherAccounts = await unwrap(s.client(other).GET(`${V1}/accounts`));
    expect(otherAccounts.data).toEqual([]);
  });

  it('bound to the desk’s browser, completes only where its cookie is: an address passed to someone else connects nothing', async () => {
    const started = await start(s, { platform: 'mastodon', handle: mastodon.handle, bind_browser: true });
    const cookie = started.response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(new RegExp(`^cpa_oauth_${started.data!.id}=[A-Za-z0-9_-]{43}; Path=/oauth/callback; Max-Age=600; HttpOnly; SameSite=Lax`));
    const location = await consent(started.data!.authorization_url, mastodon.fake.caFile);
    const elsewhere = await callback(location);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toContain('started in another browser');
    const forged = await fetch(location, { headers: { cookie: `cpa_oauth_${started.data!.id}=${'A'.repeat(43)}` } });
    expect(forged.status).toBe(400);
    expect(await unwrap(status(s, started.data!.id))).toMatchObject({ status: 'pending' });
    const here = await fetch(location, { headers: { cookie: cookie.split(';')[0]! } });
    expect(here.status).toBe(200);
    expect(here.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect(await unwrap(status(s, started.data!.id))).toMatchObject({ status: 'connected' });
  });

  it('sends the verifier only to the token endpoint: a wrong one is refused there, the service’s is accepted', async () => {
    const started = await unwrap(start(s, { platform: 'mastodon', handle: mastodon.handle }));
    const location = new URL(await consent(started.authorization_url, mastodon.fake.caFile));
    const client = new URL(started.authorization_url).searchParams.get('client_id')!;
    const [clientRow] = await findRows(s.running.deps.db, 'OAuthClient', { clientId: client });
    expect(clientRow?.clientSecret).toMatch(/^v1\./);
    const refused = await httpsCall(`${mastodon.fake.url}/oauth/token`, readFileSync(mastodon.fake.caFile), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: location.searchParams.get('code')!,
        redirect_uri: `${s.url}/oauth/callback`,
        code_verifier: 'a'.repeat(64),
        client_id: client,
        client_secret: mastodon.state.oauth.clients.get(client)!.secret,
      }).toString(),
    });
    expect(refused.status).toBe(400);
    expect(mastodon.state.oauth.refusedVerifiers).toBeGreaterThan(0);
    expect((await callback(location.toString())).status).toBe(200);
    expect(await unwrap(status(s, started.id))).toMatchObject({ status: 'connected' });
  });

  it('refuses a start without the instance, naming handle', async () => {
    await refused(start(s, { platform: 'mastodon' }), 422, 'validation_failed', /handle/);
    await refused(start(s, { platform: 'mastodon', handle: 'not an instance' }), 422, 'validation_failed', /handle/);
  });
});

describe('settings', () => {
  it('names the missing settings instead of starting, and lists them for the desk', async () => {
    await refused(start(bare, { platform: 'x' }), 409, 'state_conflict', /X_CLIENT_ID and X_CLIENT_SECRET/);
    const settings = await unwrap(bare.client().GET(`${V1}/accounts/sign-in-settings`));
    expect(settings.redirect_uri).toBe(`${bare.url}/oauth/callback`);
    expect(settings.platforms.find((p) => p.platform === 'threads')).toEqual({
      platform: 'threads',
      configured: false,
      missing_settings: ['THREADS_APP_ID', 'THREADS_APP_SECRET'],
      scopes: ['threads_basic', 'threads_content_publish', 'threads_manage_insights'],
    });
    expect(settings.platforms.find((p) => p.platform === 'mastodon')?.configured).toBe(true);
    const configured = await unwrap(s.client().GET(`${V1}/accounts/sign-in-settings`));
    expect(configured.platforms.every((p) => p.configured)).toBe(true);
  });
});

describe('X', () => {
  it('signs in as a confidential client, refreshes ahead of expiry once, and uses the rotated token', async () => {
    const { started, done } = await signIn(s, { platform: 'x' }, x.fake.caFile);
    expect(new URL(started.authorization_url).pathname).toBe('/i/oauth2/authorize');
    expect(x.oauth.lastScope).toBe('tweet.read tweet.write users.read media.write offline.access');
    expect(done.account).toMatchObject({ platform: 'x', handle: '@ada_writes', connected_by: 'sign_in', reconnect_by: null });
    const tokenCall = x.fake.requests.find((r) => r.url === '/2/oauth2/token')!;
    expect(tokenCall.headers.authorization).toBe(`Basic ${Buffer.from(`${x.clientId}:${x.clientSecret}`).toString('base64')}`);

    // The first token has 5 minutes left: the check refreshes it first, and uses the new one.
    expect(await check(s, done.account!.id)).toMatchObject({ status: 'active' });
    expect(x.oauth.refreshes).toBe(1);
    const used = x.meCalls.at(-1)!;
    expect(x.oauth.accessTokens.get(used)?.expiresAt).toBeGreaterThan(Date.now() + 3600_000);
    // The new token has two hours: no refresh.
    expect(await check(s, done.account!.id)).toMatchObject({ status: 'active' });
    expect(x.oauth.refreshes).toBe(1);
    expect(x.meCalls.at(-1)).toBe(used);
  });

  it('marks the account dead when X refuses the refresh, and the inbox says to sign in again', async () => {
    // Sign in again: a new grant whose token has 5 minutes left again.
    x.oauth.refreshedTtlSeconds = 300;
    const { done } = await signIn(s, { platform: 'x' }, x.fake.caFile);
    x.oauth.refuseRefresh = true;
    const checked = await check(s, done.account!.id);
    x.oauth.refuseRefresh = false;
    expect(checked).toMatchObject({ status: 'dead', connected_by: 'sign_in' });
    expect(checked.last_probe_error).toMatch(/refused to renew the sign-in/);
    // The service marked it dead (the refused renewal), once; the check itself is the caller's.
    const record = await unwrap(s.client().GET(`${V1}/audit-events`, { params: { query: { subject_id: done.account!.id, limit: 3 } } }));
    expect(record.data.slice(0, 2).map((e) => [e.action, e.actor.kind])).toEqual([
      ['account.checked', 'agent'],
      ['account.dead', 'system'],
    ]);
    const pipeline = await newPipeline(s);
    const inbox = await unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pipeline.pipeline_id } } }));
    expect(inbox.data.find((i) => i.id === `flagged_anomaly:reconnect_account:${done.account!.id}`)).toMatchObject({
      kind: 'flagged_anomaly',
      priority: 95,
      title: 'Sign in to x again as @ada_writes',
      suggested_action: 'connect_account',
      suggested_endpoint: 'POST /api/agent/v1/accounts/authorizations',
    });
    // Signing in again makes it active and takes the item away.
    x.oauth.refreshedTtlSeconds = 7200;
    x.oauth.accessTtlSeconds = 7200;
    const renewed = await signIn(s, { platform: 'x' }, x.fake.caFile);
    expect(renewed.done.account).toMatchObject({ id: done.account!.id, status: 'active' });
    const after = await unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pipeline.pipeline_id } } }));
    expect(after.data.some((i) => i.id.startsWith('flagged_anomaly:reconnect_account:'))).toBe(false);
  });
});

describe('LinkedIn', () => {
  it('signs in with OpenID Connect, takes the member URN from userinfo, and warns a week before the token ends', async () => {
    const { started, done } = await signIn(s, { platform: 'linkedin' }, linkedin.fake.caFile);
    expect(new URL(started.authorization_url).searchParams.get('scope')).toBe('openid profile w_member_social');
    expect(done.account).toMatchObject({ platform: 'linkedin', handle: 'urn:li:person:yrZCpj2Z12', connected_by: 'sign_in' });
    const ends = Date.parse(done.account!.reconnect_by!);
    expect(Math.abs(ends - (Date.now() + 60 * 86_400_000))).toBeLessThan(3_600_000);
    const pipeline = await newPipeline(s);
    const inbox = () => unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pipeline.pipeline_id } } }));
    const itemId = `flagged_anomaly:credential_expiring:${done.account!.id}`;
    expect((await inbox()).data.some((i) => i.id === itemId)).toBe(false);

    await updateRows(s.running.deps.db, 'Account', { id: done.account!.id }, { reconnectBy: new Date(Date.now() + 6 * 86_400_000) });
    const item = (await inbox()).data.find((i) => i.id === itemId);
    expect(item).toMatchObject({ priority: 86, suggested_action: 'connect_account', anomaly: { code: 'credential_expiring' } });
    expect(item?.anomaly?.message).toMatch(/no refresh token/);
    const report = await unwrap(s.client().GET(`${V1}/pipelines/{id}/diagnose`, { params: { path: { id: pipeline.pipeline_id } } }));
    expect(report.issues.find((i) => i.code === 'credential_expiring')).toMatchObject({ severity: 'warning' });

    // Past its end, the token is not sent to LinkedIn: the account is dead, saying why and what to do.
    const deps = s.running.deps;
    const row = await findRow(deps.db, 'Account', { id: done.account!.id });
    const creds = unsealCredentials(deps, row);
    const ended = { ...creds, grant: { ...creds.grant!, expires_at: new Date(Date.now() - 60_000).toISOString() } };
    await updateRows(deps.db, 'Account', { id: row.id }, { credentials: sealedCredentials(deps, row, ended) });
    const calls = linkedin.meCalls.length;
    const checked = await check(s, row.id);
    expect(checked).toMatchObject({ status: 'dead' });
    expect(checked.last_probe_error).toMatch(/sign-in ended .* no refresh token; sign in again/);
    expect(linkedin.meCalls).toHaveLength(calls);
  });
});

describe('Threads', () => {
  it('trades the short-lived token for the long-lived one at sign-in, and refreshes it within a week of its end', async () => {
    const { done } = await signIn(s, { platform: 'threads' }, threads.fake.caFile);
    expect(done.account).toMatchObject({ platform: 'threads', handle: '@ada.writes', connected_by: 'sign_in' });
    expect(threads.exchanges).toBe(1);
    expect(await check(s, done.account!.id)).toMatchObject({ status: 'active' });
    expect(threads.threadsRefreshes).toBe(1);
    const used = threads.meCalls.at(-1)!;
    expect(threads.oauth.accessTokens.get(used)?.expiresAt).toBeGreaterThan(Date.now() + 5 * 86_400_000);
  });
});
