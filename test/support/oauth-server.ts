// The authorization-server half of the platform fakes (RFC 6749 authorization code grant with
// RFC 7636 PKCE), as Mastodon, X, LinkedIn and Threads document theirs: an authorize page with a
// consent form a browser (or `consent()` below) submits, a token endpoint that checks the client,
// the redirect address and the code verifier against the S256 challenge, spends a code once,
// issues expiring access tokens and ROTATING refresh tokens (a spent refresh token is refused),
// and a bearer check for the fake's user-info endpoints. Each platform's fake (platforms.ts,
// oauth-fakes.ts) mounts it at that platform's paths and adds its quirks.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { json, type FakeHandler } from './https-fake.js';

export interface OAuthClientRecord {
  secret: string;
  redirectUris: string[];
}

export interface AuthServerState {
  clients: Map<string, OAuthClientRecord>;
  /** Codes issued at consent, until spent. */
  codes: Map<string, { clientId: string; redirectUri: string; challenge: string; scope: string; expiresAt: number }>;
  /** Access tokens issued, with when they expire (ms since the epoch; null: never). */
  accessTokens: Map<string, { expiresAt: number | null }>;
  /** Refresh tokens issued: a spent one (rotated away) is refused. */
  refreshTokens: Map<string, { spent: boolean }>;
  /** Seconds an access token lives (null: no expiry, as Mastodon). */
  accessTtlSeconds: number | null;
  /** Seconds the access tokens issued by a refresh live (default: accessTtlSeconds). */
  refreshedTtlSeconds: number | null;
  /** Whether the token endpoint issues refresh tokens (X with offline.access; LinkedIn's usual apps do not). */
  issueRefreshTokens: boolean;
  /** Successful refreshes, and refused ones. */
  refreshes: number;
  refusedRefreshes: number;
  /** Token-endpoint requests refused for a wrong code verifier. */
  refusedVerifiers: number;
  /** The scopes of the last authorization asked. */
  lastScope: string | null;
  /** Answer the next refresh with 400 whatever the token (the platform revoked the grant). */
  refuseRefresh: boolean;
  /**
   * Milliseconds a successful refresh waits before answering, its refresh token already spent (a
   * slow token endpoint): widens the moment in which a second instance could refresh with the
   * same token, which the fake then refuses as X does.
   */
  refreshHoldMs: number;
}

export function newAuthServerState(over: Partial<AuthServerState> = {}): AuthServerState {
  return {
    clients: new Map(),
    codes: new Map(),
    accessTokens: new Map(),
    refreshTokens: new Map(),
    accessTtlSeconds: 7200,
    refreshedTtlSeconds: null,
    issueRefreshTokens: true,
    refreshes: 0,
    refusedRefreshes: 0,
    refusedVerifiers: 0,
    lastScope: null,
    refuseRefresh: false,
    refreshHoldMs: 0,
    ...over,
  };
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const token = (prefix: string) => `${prefix}-${randomBytes(18).toString('base64url')}`;

export const CONSENT_PATH = '/fake-oauth/consent';

/** GET <authorize>: checks the request and answers the consent page (a form with "Authorize" and "Cancel"). */
export function authorizePage(state: AuthServerState, platform: string): FakeHandler {
  return (req, res) => {
    const q = new URL(req.url ?? '/', 'https://fake').searchParams;
    const client = state.clients.get(q.get('client_id') ?? '');
    const redirect = q.get('redirect_uri') ?? '';
    if (!client || !client.redirectUris.includes(redirect))
      return json(res, 400, { error: 'invalid_client', error_description: 'unknown client or redirect_uri' });
    if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || !q.get('state')) {
      return json(res, 400, { error: 'invalid_request', error_description: 'response_type=code, state and an S256 code_challenge are required' });
    }
    state.lastScope = q.get('scope');
    const hidden = ['client_id', 'redirect_uri', 'state', 'code_challenge', 'scope']
      .map((k) => `<input type="hidden" name="${k}" value="${escape(q.get(k) ?? '')}">`)
      .join('');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Authorize Content Pipeline · ${platform}</title><h1>Authorize Content Pipeline to use your ${platform} account?</h1>` +
        `<p>Scopes: ${escape(q.get('scope') ?? '')}</p><form method="post" action="${CONSENT_PATH}">${hidden}` +
        `<button type="submit" name="decision" value="approve">Authorize app</button> <button type="submit" name="decision" value="deny">Cancel</button></form>`,
    );
  };
}

/** POST the consent form: back to the client's redirect address with a code (or `error=access_denied`). */
export function consentHandler(state: AuthServerState): FakeHandler {
  return (_req, res, body) => {
    const f = new URLSearchParams(body.toString('utf8'));
    const redirect = new URL(f.get('redirect_uri') ?? '');
    redirect.searchParams.set('state', f.get('state') ?? '');
    if (f.get('decision') === 'approve') {
      const code = token('code');
      state.codes.set(code, {
        clientId: f.get('client_id') ?? '',
        redirectUri: f.get('redirect_uri') ?? '',
        challenge: f.get('code_challenge') ?? '',
        scope: f.get('scope') ?? '',
        expiresAt: Date.now() + 60_000,
      });
      redirect.searchParams.set('code', code);
    } else {
      redirect.searchParams.set('error', 'access_denied');
    }
    res.writeHead(302, { location: redirect.toString() });
    res.end();
  };
}

function clientOf(state: AuthServerState, req: http.IncomingMessage, form: URLSearchParams, auth: 'basic' | 'body'): string | null {
  let id: string | null = null;
  let secret: string | null = null;
  if (auth === 'basic') {
    const m = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''));
    if (m) [id, secret] = Buffer.from(m[1]!, 'base64').toString('utf8').split(':').map(decodeURIComponent) as [string, string];
  } else {
    id = form.get('client_id');
    secret = form.get('client_secret');
  }
  const client = id ? state.clients.get(id) : undefined;
  return client && client.secret === secret ? id : null;
}

export interface IssuedTokens {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope: string;
}

export function issueTokens(state: AuthServerState, scope: string, ttl: number | null, withRefresh: boolean): IssuedTokens {
  const access = token('at');
  state.accessTokens.set(access, { expiresAt: ttl === null ? null : Date.now() + ttl * 1000 });
  const out: IssuedTokens = { access_token: access, token_type: 'bearer', scope, ...(ttl === null ? {} : { expires_in: ttl }) };
  if (withRefresh) {
    const refresh = token('rt');
    state.refreshTokens.set(refresh, { spent: false });
    out.refresh_token = refresh;
  }
  return out;
}

/**
 * The token endpoint (form-encoded): `authorization_code` with the PKCE verifier, and
 * `refresh_token` with rotation. `issue` lets a platform shape the answer (Mastodon's fixed token).
 */
export function tokenEndpoint(
  state: AuthServerState,
  opts: { clientAuth: 'basic' | 'body'; issue?: (scope: string) => Record<string, unknown>; spentRefresh?: { error: string; error_description: string } },
): FakeHandler {
  return async (req, res, body) => {
    const form = new URLSearchParams(body.toString('utf8'));
    const clientId = clientOf(state, req, form, opts.clientAuth);
    if (!clientId) return json(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
    if (form.get('grant_type') === 'authorization_code') {
      const code = state.codes.get(form.get('code') ?? '');
      if (!code || code.expiresAt < Date.now() || code.clientId !== clientId || code.redirectUri !== form.get('redirect_uri')) {
        return json(res, 400, { error: 'invalid_grant', error_description: 'The authorization code is invalid, expired or was issued to another client' });
      }
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) {
        state.refusedVerifiers += 1;
        return json(res, 400, { error: 'invalid_grant', error_description: 'The code_verifier does not match the code_challenge' });
      }
      state.codes.delete(form.get('code') ?? '');
      return json(res, 200, opts.issue ? opts.issue(code.scope) : issueTokens(state, code.scope, state.accessTtlSeconds, state.issueRefreshTokens));
    }
    if (form.get('grant_type') === 'refresh_token') {
      const known = state.refreshTokens.get(form.get('refresh_token') ?? '');
      if (!known || known.spent || state.refuseRefresh) {
        state.refusedRefreshes += 1;
        return json(res, 400, opts.spentRefresh ?? { error: 'invalid_grant', error_description: 'The refresh token is invalid or was used already' });
      }
      known.spent = true;
      state.refreshes += 1;
      if (state.refreshHoldMs > 0) await new Promise((resolve) => setTimeout(resolve, state.refreshHoldMs));
      return json(res, 200, issueTokens(state, state.lastScope ?? '', state.refreshedTtlSeconds ?? state.accessTtlSeconds, true));
    }
    return json(res, 400, { error: 'unsupported_grant_type' });
  };
}

/** Whether the request carries an access token the fake issued and that has not expired. */
export function bearerValid(state: AuthServerState, req: http.IncomingMessage, fromQuery = false): boolean {
  const header = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
  const value = header ?? (fromQuery ? new URL(req.url ?? '/', 'https://fake').searchParams.get('access_token') : null);
  const t = value ? state.accessTokens.get(value) : undefined;
  return t !== undefined && (t.expiresAt === null || t.expiresAt > Date.now());
}

/** A GET or form POST over HTTPS trusting the fakes' CA, without following redirects. */
export function httpsCall(
  url: string,
  caFile: Buffer | string | null,
  opts: { method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const u = new URL(url);
  const mod = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(u, { method: opts.method ?? 'GET', headers: opts.headers, ...(u.protocol === 'https:' && caFile ? { ca: caFile } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/**
 * What a person does in the browser: opens the authorization address, and submits the fake's
 * consent form with "Authorize app" (or "Cancel"). Answers the address the fake sends the browser
 * back to (the service's callback, with the code and the state), without following it.
 */
export async function consent(authorizationUrl: string, caFile: string, decision: 'approve' | 'deny' = 'approve'): Promise<string> {
  const page = await httpsCall(authorizationUrl, caFile ? readFileSync(caFile) : null);
  if (page.status !== 200) throw new Error(`the authorize page answered ${page.status}: ${page.body}`);
  const fields = new URLSearchParams();
  for (const m of page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(m[1]!, unescapeHtml(m[2]!));
  fields.set('decision', decision);
  const form = await httpsCall(new URL(CONSENT_PATH, authorizationUrl).toString(), caFile ? readFileSync(caFile) : null, {
    method: 'POST',
    body: fields.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const location = form.headers.location;
  if (form.status !== 302 || !location) throw new Error(`the consent form answered ${form.status}: ${form.body}`);
  return location;
}

const unescapeHtml = (s: string) => s.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n)));
