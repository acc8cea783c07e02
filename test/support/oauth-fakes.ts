// Local fakes of the X, LinkedIn and Threads authorization servers, each on one HTTPS origin that
// the service reaches through its test-only `<PLATFORM>_OAUTH_BASE_URL` setting (the paths stay the
// platforms' own). Built from the platforms' documentation:
// - X: docs.x.com, "OAuth 2.0 Authorization Code Flow with PKCE": GET /i/oauth2/authorize,
//   POST /2/oauth2/token (confidential clients authenticate with HTTP Basic), access tokens of two
//   hours, a refresh token with `offline.access` that rotates on every refresh (a spent one is
//   answered 400 `invalid_request` "Value passed for the token was invalid."), GET /2/users/me.
// - LinkedIn: learn.microsoft.com, "Authorization Code Flow" and "Sign In with LinkedIn using
//   OpenID Connect": GET /oauth/v2/authorization, POST /oauth/v2/accessToken (client id and secret
//   in the form), 60-day tokens and no refresh token for most apps, GET /v2/userinfo (`sub`).
// - Threads: developers.facebook.com, "Get Access Tokens and Permissions" and "Long-Lived Access
//   Tokens": GET /oauth/authorize, POST /oauth/access_token (a one-hour token and the `user_id`),
//   GET /access_token?grant_type=th_exchange_token (60 days), GET
//   /refresh_access_token?grant_type=th_refresh_token, GET /v1.0/me?fields=id,username.
import {
  authorizePage,
  bearerValid,
  CONSENT_PATH,
  consentHandler,
  issueTokens,
  newAuthServerState,
  tokenEndpoint,
  type AuthServerState,
} from './oauth-server.js';
import { json, startFake, type Fake } from './https-fake.js';

export interface OAuthFake {
  fake: Fake;
  oauth: AuthServerState;
  user: { id: string; username: string; name: string };
  clientId: string;
  clientSecret: string;
  /** The settings that point the service at this fake, with its developer app. */
  env: Record<string, string>;
  /** GET /2/users/me (or /v2/userinfo, /v1.0/me) answered with a valid token, by token. */
  meCalls: string[];
}

interface Options {
  /** The service's callback address the developer app registers (set before the first authorization). */
  redirectUris?: string[];
  over?: Partial<AuthServerState>;
  /** Threads: seconds a long-lived token lives (60 days). */
  longLivedSeconds?: number;
}

const DAY = 86_400;

function base(platform: 'X' | 'LINKEDIN' | 'THREADS', fake: Fake, clientId: string, clientSecret: string): Record<string, string> {
  const [idName, secretName] = platform === 'THREADS' ? ['THREADS_APP_ID', 'THREADS_APP_SECRET'] : [`${platform}_CLIENT_ID`, `${platform}_CLIENT_SECRET`];
  return { ...fake.outboundEnv, [`${platform}_OAUTH_BASE_URL`]: fake.url, [idName]: clientId, [secretName]: clientSecret };
}

/** Registers the service's callback address as the developer app's redirect URL (what the operator does in the platform's console). */
export function allowRedirect(f: OAuthFake, redirectUri: string): void {
  f.oauth.clients.get(f.clientId)!.redirectUris.push(redirectUri);
}

export async function startXAuthFake(opts: Options = {}): Promise<OAuthFake> {
  const oauth = newAuthServerState({ accessTtlSeconds: 2 * 3600, ...opts.over });
  const clientId = 'x-client-M1NkQ2xXb0pQ';
  const clientSecret = 'x-secret-0123456789abcdef';
  oauth.clients.set(clientId, { secret: clientSecret, redirectUris: [...(opts.redirectUris ?? [])] });
  const user = { id: '1460000000000000001', username: 'ada_writes', name: 'Ada' };
  const meCalls: string[] = [];
  const fake = await startFake({
    routes: {
      'GET /i/oauth2/authorize': authorizePage(oauth, 'X'),
      [`POST ${CONSENT_PATH}`]: consentHandler(oauth),
      'POST /2/oauth2/token': tokenEndpoint(oauth, {
        clientAuth: 'basic',
        spentRefresh: { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' },
      }),
      'GET /2/users/me': (req, res) => {
        if (!bearerValid(oauth, req)) return json(res, 401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' });
        meCalls.push(String(req.headers.authorization).slice(7));
        json(res, 200, { data: user });
      },
    },
  });
  return { fake, oauth, user, clientId, clientSecret, env: base('X', fake, clientId, clientSecret), meCalls };
}

export async function startLinkedInAuthFake(opts: Options = {}): Promise<OAuthFake> {
  const oauth = newAuthServerState({ accessTtlSeconds: 60 * DAY, issueRefreshTokens: false, ...opts.over });
  const clientId = '86linkedinclient';
  const clientSecret = 'linkedin-secret-0123456789';
  oauth.clients.set(clientId, { secret: clientSecret, redirectUris: [...(opts.redirectUris ?? [])] });
  const user = { id: 'yrZCpj2Z12', username: 'yrZCpj2Z12', name: 'Ada Lovelace' };
  const meCalls: string[] = [];
  const fake = await startFake({
    routes: {
      'GET /oauth/v2/authorization': authorizePage(oauth, 'LinkedIn'),
      [`POST ${CONSENT_PATH}`]: consentHandler(oauth),
      'POST /oauth/v2/accessToken': tokenEndpoint(oauth, { clientAuth: 'body' }),
      'GET /v2/userinfo': (req, res) => {
        if (!bearerValid(oauth, req)) return json(res, 401, { serviceErrorCode: 65600, message: 'Invalid access token', status: 401 });
        meCalls.push(String(req.headers.authorization).slice(7));
        json(res, 200, {
          sub: user.id,
          name: user.name,
          given_name: 'Ada',
          family_name: 'Lovelace',
          locale: { country: 'GB', language: 'en' },
          email_verified: true,
        });
      },
    },
  });
  return { fake, oauth, user, clientId, clientSecret, env: base('LINKEDIN', fake, clientId, clientSecret), meCalls };
}

export interface ThreadsAuthFake extends OAuthFake {
  /** Long-lived tokens issued by th_exchange_token, and refreshes by th_refresh_token. */
  exchanges: number;
  threadsRefreshes: number;
}

export async function startThreadsAuthFake(opts: Options = {}): Promise<ThreadsAuthFake> {
  const oauth = newAuthServerState({ accessTtlSeconds: 3600, issueRefreshTokens: false, ...opts.over });
  const clientId = '990602627938098';
  const clientSecret = 'threads-secret-0123456789';
  oauth.clients.set(clientId, { secret: clientSecret, redirectUris: [...(opts.redirectUris ?? [])] });
  const user = { id: '17841400000000001', username: 'ada.writes', name: 'Ada' };
  const meCalls: string[] = [];
  const shortLived = new Set<string>();
  const out: ThreadsAuthFake = { fake: null as unknown as Fake, oauth, user, clientId, clientSecret, env: {}, meCalls, exchanges: 0, threadsRefreshes: 0 };
  const longLived = (res: Parameters<typeof json>[0]) => {
    const ttl = opts.longLivedSeconds ?? 60 * DAY;
    const t = issueTokens(oauth, '', ttl, false);
    json(res, 200, { access_token: t.access_token, token_type: 'bearer', expires_in: ttl });
  };
  const fake = await startFake({
    routes: {
      'GET /oauth/authorize': authorizePage(oauth, 'Threads'),
      [`POST ${CONSENT_PATH}`]: consentHandler(oauth),
      'POST /oauth/access_token': tokenEndpoint(oauth, {
        clientAuth: 'body',
        issue: (scope) => {
          const t = issueTokens(oauth, scope, 3600, false);
          shortLived.add(t.access_token);
          return { access_token: t.access_token, user_id: Number(user.id) };
        },
      }),
      'GET /access_token': (req, res) => {
        const q = new URL(req.url ?? '/', 'https://fake').searchParams;
        const token = q.get('access_token') ?? '';
        if (
          q.get('grant_type') !== 'th_exchange_token' ||
          q.get('client_secret') !== clientSecret ||
          !shortLived.has(token) ||
          !bearerValid(oauth, req, true)
        ) {
          return json(res, 400, { error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190 } });
        }
        shortLived.delete(token);
        out.exchanges += 1;
        longLived(res);
      },
      'GET /refresh_access_token': (req, res) => {
        const q = new URL(req.url ?? '/', 'https://fake').searchParams;
        if (q.get('grant_type') !== 'th_refresh_token' || shortLived.has(q.get('access_token') ?? '') || !bearerValid(oauth, req, true)) {
          return json(res, 400, { error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190 } });
        }
        out.threadsRefreshes += 1;
        longLived(res);
      },
      'GET /v1.0/me': (req, res) => {
        if (!bearerValid(oauth, req, true)) return json(res, 401, { error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190 } });
        meCalls.push(String(req.headers.authorization).slice(7));
        json(res, 200, { id: user.id, username: user.username });
      },
    },
  });
  out.fake = fake;
  out.env = base('THREADS', fake, clientId, clientSecret);
  return out;
}
