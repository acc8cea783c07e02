// What a platform's sign-in is made of (server/platforms/<name>/oauth.ts implements it), and the
// token-endpoint exchange they share (RFC 6749 §4.1.3 and §6, form-encoded, JSON answer).
import { send } from '../../adapters/http.js';
import { AdapterError, type AdapterContext } from '../../adapters/types.js';
import type { Config } from '../../config.js';

export type SignInPlatformName = 'mastodon' | 'x' | 'linkedin' | 'threads';

/** The app the service signs in with: the operator's (X, LinkedIn, Threads) or its registration on a Mastodon instance. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/** What a token endpoint gave. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  /** When the access token expires (null: the platform did not say; it lives until revoked). */
  expiresAt: Date | null;
}

/** Who signed in. */
export interface Identity {
  /** The account's canonical handle on the service (`@name@instance`, `@name`, `urn:li:person:…`). */
  handle: string;
  /** The platform's user id, when its API addresses the account by it (X, Threads); kept as `Credentials.secondary`. */
  userId: string | null;
}

export interface StartContext {
  ctx: AdapterContext;
  /** The Mastodon instance (host[:port]); null elsewhere. */
  instance: string | null;
  redirectUri: string;
}

export interface OAuthPlatform {
  readonly platform: SignInPlatformName;
  readonly scopes: readonly string[];
  /** The settings this service lacks to sign in to the platform (empty: ready). */
  missingSettings(config: Config): string[];
  /** The app to sign in with (Mastodon registers one on the instance, once: `register`). */
  client(config: Config, instance: string | null): OAuthClient | null;
  /** Mastodon: registers the service's app on the instance (`POST /api/v1/apps`). */
  register?(s: StartContext): Promise<OAuthClient>;
  /** The authorization endpoint (the PKCE and state parameters are added by the caller). */
  authorizeUrl(config: Config, instance: string | null): string;
  /** Trades the code (with the PKCE verifier) for tokens; Threads also trades the short-lived token for the 60-day one. */
  exchangeCode(s: StartContext, client: OAuthClient, code: string, verifier: string): Promise<TokenSet>;
  /** Who the token belongs to. */
  identify(s: StartContext, accessToken: string): Promise<Identity>;
  /** A fresh token from the grant (absent: the grant cannot be refreshed, e.g. Mastodon's tokens do not expire). */
  refresh?(s: StartContext, client: OAuthClient, grant: { accessToken: string; refreshToken: string | null }): Promise<TokenSet>;
  /** When the grant ends without a refresh (LinkedIn without a refresh token): the account must be signed in again by then. */
  reconnectBy?(tokens: TokenSet): Date | null;
  /** Refresh once the access token has less than this left (ms). */
  readonly refreshAheadMs?: number;
  /** The refresh presents the access token itself (Threads' `th_refresh_token`), not a refresh token. */
  readonly refreshesWithAccessToken?: boolean;
}

/** The token endpoint refused the code or the refresh token: nothing but signing in again helps. */
export class GrantRefused extends Error {}

export interface TokenCall {
  url: string;
  what: string;
  params: Record<string, string>;
  /** `basic`: client id and secret as HTTP Basic (X's confidential clients); `body`: as form fields; `none`: neither. */
  clientAuth: 'basic' | 'body' | 'none';
  client: OAuthClient;
  /** GET with the parameters in the query (Threads' exchange and refresh) instead of a form POST. */
  method?: 'GET' | 'POST';
}

/** Calls a token endpoint; a refusal (400/401) is `GrantRefused`, other failures `AdapterError`. */
export async function tokenRequest(ctx: AdapterContext, call: TokenCall): Promise<TokenSet> {
  const params = new URLSearchParams(call.params);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (call.clientAuth === 'basic') {
    const basic = Buffer.from(`${encodeURIComponent(call.client.clientId)}:${encodeURIComponent(call.client.clientSecret)}`).toString('base64');
    headers.authorization = `Basic ${basic}`;
  } else if (call.clientAuth === 'body') {
    params.set('client_id', call.client.clientId);
    params.set('client_secret', call.client.clientSecret);
  }
  const get = call.method === 'GET';
  let res;
  try {
    res = await send(ctx, {
      what: call.what,
      url: get ? `${call.url}?${params.toString()}` : call.url,
      method: get ? 'GET' : 'POST',
      headers: get ? headers : { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      ...(get ? {} : { body: params.toString() }),
    });
  } catch (err) {
    // RFC 6749 §5.2 says `invalid_grant`; X answers a spent refresh token with `invalid_request`:
    // a 400 or 401 from a token endpoint is the grant (or the client) refused either way.
    if (err instanceof AdapterError && (err.status === 400 || err.status === 401)) throw new GrantRefused(err.message);
    throw err;
  }
  let body: Record<string, unknown>;
  try {
    body = res.json<Record<string, unknown>>();
  } catch {
    throw new AdapterError('invalid_response', `${call.what} did not answer JSON`, res.status);
  }
  const access = body.access_token;
  if (typeof access !== 'string' || !access) throw new AdapterError('invalid_response', `${call.what} answered no access_token`, res.status);
  const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : null;
  return {
    accessToken: access,
    refreshToken: typeof body.refresh_token === 'string' && body.refresh_token ? body.refresh_token : null,
    expiresAt: expiresIn === null ? null : new Date(ctx.now.getTime() + expiresIn * 1000),
  };
}

/** Reads a JSON answer's string field, or fails as an unreadable answer. */
export function field(body: unknown, name: string, what: string): string {
  const v = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof v === 'string' && v) return v;
  if (typeof v === 'number') return String(v);
  throw new AdapterError('invalid_response', `${what} answered no ${name}`);
}
