// Connecting an account by signing in: OAuth 2.0 authorization code with PKCE (RFC 7636, S256).
// The start answers the platform's authorization address, carrying a random single-use `state`
// (stored hashed, 10 minutes, bound to the workspace and the token that started it) and the
// code challenge; the code verifier is sealed in the database and never leaves the service. The
// platform sends the browser back to GET /oauth/callback, where the code is exchanged on the
// server, the account identified, and stored with its grant sealed like every credential.
import { createHash, randomBytes } from 'node:crypto';
import type { components } from '../../../generated/api.js';
import { adapterFor } from '../../adapters/index.js';
import { AdapterError, type AdapterContext } from '../../adapters/types.js';
import { API_PREFIX, notFound, stateConflict, validationFailed } from '../../errors.js';
import { OAUTH_PLATFORMS } from '../../platforms/oauth.js';
import { findAccountById, saveAccount } from '../../store/accounts.js';
import * as store from '../../store/oauth.js';
import type { AuthorizationRow } from '../../store/oauth.js';
import { accountView } from '../accounts.js';
import { auditActor, recordAudit } from '../audit.js';
import { sealedCredentials, type StoredCredentials } from '../account-secrets.js';
import type { Caller, ServiceDeps } from '../context.js';
import { credentialCipher } from '../crypto.js';
import { upstreamAppError } from '../upstream.js';
import { GrantRefused, type OAuthClient, type OAuthPlatform, type SignInPlatformName, type StartContext } from './platform.js';
import { redirectUri } from './redirect.js';

type S = components['schemas'];

export const STATE_TTL_MS = 10 * 60 * 1000;

const sha256 = (s: string) => createHash('sha256').update(s).digest();
export const stateHash = (state: string) => sha256(`content-pipeline oauth state\0${state}`).toString('hex');
/** RFC 7636 §4.2: BASE64URL(SHA256(ASCII(code_verifier))). */
export const s256 = (verifier: string) => sha256(verifier).toString('base64url');
const verifierAad = (id: string) => `oauth|${id}|verifier`;
const clientAad = (instance: string, redirect: string) => `oauth-client|${instance}|${redirect}`;

function adapterContext(deps: ServiceDeps): AdapterContext {
  return { outbound: deps.outbound, config: deps.config, proxyUrl: null, now: deps.clock.now() };
}

export function authorizationView(row: AuthorizationRow, account: S['Account'] | null, now: Date): S['AccountAuthorization'] {
  const expired = row.status === 'pending' && row.expiresAt <= now;
  return {
    id: row.id,
    platform: row.platform as SignInPlatformName,
    status: expired ? 'failed' : (row.status as S['AccountAuthorization']['status']),
    authorization_url: row.authorizationUrl,
    redirect_uri: row.redirectUri,
    expires_at: row.expiresAt.toISOString(),
    account,
    failure: expired ? 'expired' : row.failure,
    created_at: row.createdAt.toISOString(),
  };
}

/** What signing in needs on this service, per platform (the desk's "Connect" buttons). */
export function signInSettings(deps: ServiceDeps): S['SignInSettings'] {
  return {
    redirect_uri: redirectUri(deps.config),
    platforms: Object.values(OAUTH_PLATFORMS).map((p) => {
      const missing = p.missingSettings(deps.config);
      return { platform: p.platform, configured: missing.length === 0, missing_settings: missing, scopes: [...p.scopes] };
    }),
  };
}

/** The Mastodon instance (and user, when named) of the start's `handle`. */
function mastodonTarget(handle: string | undefined): { instance: string; expected: string | null } {
  if (!handle) throw validationFailed('body.handle', 'is required for mastodon: the instance to sign in on, as @user@instance or the host (mastodon.social)');
  const named = handle.replace(/^@/, '').includes('@');
  let canonical: string;
  try {
    canonical = adapterFor('mastodon').normalizeHandle(named ? handle : `@user@${handle}`);
  } catch {
    throw validationFailed('body.handle', 'must be @user@instance or an instance host such as mastodon.social');
  }
  const instance = canonical.slice(canonical.lastIndexOf('@') + 1);
  return { instance, expected: named ? canonical : null };
}

/** The service's app on a Mastodon instance: registered once per instance and callback address, then reused. */
async function mastodonClient(deps: ServiceDeps, p: OAuthPlatform, s: StartContext): Promise<OAuthClient> {
  const instance = s.instance!;
  const cipher = credentialCipher(deps.config);
  let row = await store.findClient(deps.db, instance, s.redirectUri);
  if (!row) {
    let made: OAuthClient;
    try {
      made = await p.register!(s);
    } catch (err) {
      throw upstreamAppError(err, { platform: 'mastodon', handle: instance, probe: false });
    }
    row = await store.saveClient(deps.db, {
      instance,
      redirectUri: s.redirectUri,
      clientId: made.clientId,
      clientSecret: cipher.encrypt(made.clientSecret, clientAad(instance, s.redirectUri)),
      createdAt: deps.clock.now(),
    });
  }
  return { clientId: row.clientId, clientSecret: cipher.decrypt(row.clientSecret, clientAad(instance, s.redirectUri)) };
}

async function clientFor(deps: ServiceDeps, p: OAuthPlatform, s: StartContext): Promise<OAuthClient> {
  const configured = p.client(deps.config, s.instance);
  if (configured) return configured;
  if (p.register) return mastodonClient(deps, p, s);
  throw notConfigured(p, deps);
}

function notConfigured(p: OAuthPlatform, deps: ServiceDeps) {
  const missing = p.missingSettings(deps.config);
  return stateConflict(
    `Signing in to ${p.platform} needs the operator's developer app: set ${missing.join(' and ')} on the server and restart it (docs/accounts.md).`,
    { suggestedAction: 'configure_sign_in', suggestedEndpoint: `GET ${API_PREFIX}/accounts/sign-in-settings` },
  );
}

const bindingCookie = (id: string) => `cpa_oauth_${id}`;

/** Starts an authorization; with `bind_browser`, also the cookie (a Set-Cookie value) the callback will ask of the browser. */
export async function startAuthorization(
  deps: ServiceDeps,
  caller: Caller,
  body: S['StartAuthorizationRequest'],
): Promise<{ authorization: S['AccountAuthorization']; cookie: string | null }> {
  const p = OAUTH_PLATFORMS[body.platform];
  if (p.missingSettings(deps.config).length) throw notConfigured(p, deps);
  const target = body.platform === 'mastodon' ? mastodonTarget(body.handle) : { instance: null, expected: null };
  const s: StartContext = { ctx: adapterContext(deps), instance: target.instance, redirectUri: redirectUri(deps.config) };
  const client = await clientFor(deps, p, s);
  const state = randomBytes(32).toString('base64url');
  const verifier = randomBytes(48).toString('base64url'); // 64 characters, within RFC 7636's 43..128
  const url = new URL(p.authorizeUrl(deps.config, target.instance));
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('redirect_uri', s.redirectUri);
  url.searchParams.set('scope', p.scopes.join(' '));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', s256(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  const now = deps.clock.now();
  const id = deps.ids.id('oau');
  const binding = body.bind_browser ? randomBytes(32).toString('base64url') : null;
  const row: AuthorizationRow = {
    id,
    workspaceId: caller.workspaceId,
    tokenId: caller.tokenId,
    platform: p.platform,
    instance: target.instance,
    expectedHandle: target.expected,
    browserBinding: binding === null ? null : sha256(binding).toString('hex'),
    stateHash: stateHash(state),
    verifier: credentialCipher(deps.config).encrypt(verifier, verifierAad(id)),
    authorizationUrl: url.toString(),
    redirectUri: s.redirectUri,
    status: 'pending',
    accountId: null,
    failure: null,
    expiresAt: new Date(now.getTime() + STATE_TTL_MS),
    createdAt: now,
    updatedAt: now,
  };
  await store.insertAuthorization(deps.db, row);
  const secure = s.redirectUri.startsWith('https:') ? '; Secure' : '';
  const cookie =
    binding === null ? null : `${bindingCookie(id)}=${binding}; Path=/oauth/callback; Max-Age=${STATE_TTL_MS / 1000}; HttpOnly; SameSite=Lax${secure}`;
  return { authorization: authorizationView(row, null, now), cookie };
}

/** Whether the browser's cookies hold the binding of `row` (always, for an authorization not bound to a browser). */
function browserMatches(row: AuthorizationRow, cookieHeader: string | undefined): boolean {
  if (row.browserBinding === null) return true;
  const name = `${bindingCookie(row.id)}=`;
  const value = (cookieHeader ?? '')
    .split(';')
    .map((c) => c.trim())
    .find((c) => c.startsWith(name))
    ?.slice(name.length);
  return value !== undefined && sha256(value).toString('hex') === row.browserBinding;
}

export async function getAuthorization(deps: ServiceDeps, caller: Caller, id: string): Promise<S['AccountAuthorization']> {
  const row = await store.findAuthorization(deps.db, caller.workspaceId, id);
  if (!row) throw notFound('authorization');
  const account = row.accountId ? await findAccountById(deps.db, caller.workspaceId, row.accountId) : null;
  return authorizationView(row, account ? accountView(account) : null, deps.clock.now());
}

/** How long a finished (or expired) authorization stays readable with GET /accounts/authorizations/{id}. */
export const AUTHORIZATION_KEPT_MS = 24 * 60 * 60 * 1000;

/** The hourly sweep: forgets the authorizations older than a day. */
export function sweepAuthorizations(deps: Pick<ServiceDeps, 'db' | 'clock'>): Promise<number> {
  return store.deleteAuthorizations(deps.db, new Date(deps.clock.now().getTime() - AUTHORIZATION_KEPT_MS));
}

/** What the callback page says. */
export interface CallbackOutcome {
  status: 200 | 400 | 502;
  title: string;
  message: string;
  /** A Set-Cookie value that removes the binding cookie, once it served. */
  clearCookie?: string;
}

const OTHER_BROWSER =
  'This sign-in was started in another browser: finish it there, or start connecting again from this one. (An address someone sent you connects nothing.)';

const REFUSED_STATE = 'This sign-in link is not valid: it was used already, expired (they last 10 minutes), or never existed. Start connecting again.';

/** The platform sent the browser back: spend the state, trade the code, store the account. */
export async function finishAuthorization(deps: ServiceDeps, q: Record<string, unknown>, cookieHeader?: string): Promise<CallbackOutcome> {
  const text = (k: string) => (typeof q[k] === 'string' ? (q[k] as string).slice(0, 2048) : null);
  const state = text('state');
  const refused = { status: 400 as const, title: 'Not connected', message: REFUSED_STATE };
  if (!state) return refused;
  const row = await store.findAuthorizationByState(deps.db, stateHash(state));
  const now = deps.clock.now();
  if (!row || row.status !== 'pending' || !row.verifier) return refused;
  if (row.expiresAt <= now) {
    await store.finishAuthorization(deps.db, { id: row.id, status: 'failed', accountId: null, failure: 'expired', now });
    return refused;
  }
  // Checked before the state is spent: a browser without the binding (someone the address was sent to) changes nothing.
  if (!browserMatches(row, cookieHeader)) return { status: 400, title: 'Not connected', message: OTHER_BROWSER };
  if (!(await store.spendAuthorization(deps.db, row.id, row.verifier, now))) return refused;
  const clearCookie = row.browserBinding === null ? undefined : `${bindingCookie(row.id)}=; Path=/oauth/callback; Max-Age=0; HttpOnly; SameSite=Lax`;
  const fail = async (status: 400 | 502, failure: string): Promise<CallbackOutcome> => {
    await store.finishAuthorization(deps.db, { id: row.id, status: 'failed', accountId: null, failure: failure.slice(0, 500), now: deps.clock.now() });
    return { status, title: 'Not connected', message: failure, clearCookie };
  };
  const error = text('error');
  if (error) return fail(400, `denied: ${error}${text('error_description') ? ` (${text('error_description')})` : ''}`);
  const code = text('code');
  if (!code) return fail(400, 'the platform sent no code');
  const p = OAUTH_PLATFORMS[row.platform as SignInPlatformName];
  const verifier = credentialCipher(deps.config).decrypt(row.verifier, verifierAad(row.id));
  const s: StartContext = { ctx: adapterContext(deps), instance: row.instance, redirectUri: row.redirectUri };
  try {
    const client = await clientFor(deps, p, s);
    const tokens = await p.exchangeCode(s, client, code, verifier);
    const who = await p.identify(s, tokens.accessToken);
    if (row.expectedHandle && row.expectedHandle !== who.handle) {
      return await fail(400, `signed in as ${who.handle}, not ${row.expectedHandle}: sign in as that account, or start with the instance alone`);
    }
    const key = { workspaceId: row.workspaceId, platform: row.platform, handle: who.handle };
    const creds: StoredCredentials = {
      secret: tokens.accessToken,
      secondary: who.userId,
      grant: { refresh_token: tokens.refreshToken, expires_at: tokens.expiresAt?.toISOString() ?? null, instance: row.instance },
    };
    const { account, created } = await saveAccount(deps.db, {
      id: deps.ids.id('acc'),
      ...key,
      credentials: sealedCredentials(deps, key, creds),
      proxyUrl: null,
      connectedBy: 'sign_in',
      reconnectBy: p.reconnectBy?.(tokens) ?? null,
      now: deps.clock.now(),
    });
    await store.finishAuthorization(deps.db, { id: row.id, status: 'connected', accountId: account.id, failure: null, now: deps.clock.now() });
    // The connection is the doing of whoever started the sign-in (its token), not of the browser that came back.
    await recordAudit(deps.db, deps, {
      workspaceId: row.workspaceId,
      actor: await auditActor(deps, { workspaceId: row.workspaceId, tokenId: row.tokenId }),
      action: 'account.connected',
      subject: { type: 'account', id: account.id },
      summary: `${created ? 'Connected' : 'Signed in again to'} ${row.platform} ${who.handle} (signing in)`,
      detail: { platform: row.platform, handle: who.handle, result: created ? 'added' : 'rotated', authorization_id: row.id },
    });
    return { status: 200, title: `Connected ${who.handle}`, message: `Connected ${who.handle} on ${row.platform} — you can close this tab.`, clearCookie };
  } catch (err) {
    if (err instanceof AdapterError) return fail(err.kind === 'unavailable' ? 502 : 400, err.message);
    if (err instanceof GrantRefused) return fail(400, `the platform refused the code: ${err.message}`);
    throw err;
  }
}
