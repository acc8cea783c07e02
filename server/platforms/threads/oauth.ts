// Signing in to Threads with the operator's Meta app (THREADS_APP_ID / THREADS_APP_SECRET): the
// code gives a short-lived token (one hour), traded at once for the long-lived one (60 days,
// `th_exchange_token`), which the service refreshes before it expires (`th_refresh_token`, with
// the token itself: Threads has no refresh token). https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions
import { sendJson } from '../../adapters/http.js';
import type { Config } from '../../config.js';
import { field, tokenRequest, type OAuthPlatform } from '../../services/oauth/platform.js';

const wwwBase = (config: Config) => config.oauthBaseUrls.threads ?? 'https://threads.net';
const graphBase = (config: Config) => config.oauthBaseUrls.threads ?? 'https://graph.threads.net';

export const threadsOAuth: OAuthPlatform = {
  platform: 'threads',
  scopes: ['threads_basic', 'threads_content_publish', 'threads_manage_insights'],
  refreshAheadMs: 7 * 24 * 60 * 60 * 1000,
  refreshesWithAccessToken: true,
  missingSettings: (config) => (config.oauthApps.threads ? [] : ['THREADS_APP_ID', 'THREADS_APP_SECRET']),
  client: (config) => config.oauthApps.threads,
  authorizeUrl: (config) => `${wwwBase(config)}/oauth/authorize`,
  async exchangeCode(s, client, code, verifier) {
    const short = await tokenRequest(s.ctx, {
      url: `${graphBase(s.ctx.config)}/oauth/access_token`,
      what: 'Threads (POST /oauth/access_token)',
      clientAuth: 'body',
      client,
      params: { grant_type: 'authorization_code', code, redirect_uri: s.redirectUri, code_verifier: verifier },
    });
    return tokenRequest(s.ctx, {
      url: `${graphBase(s.ctx.config)}/access_token`,
      what: 'Threads (GET /access_token, th_exchange_token)',
      clientAuth: 'none',
      client,
      method: 'GET',
      params: { grant_type: 'th_exchange_token', client_secret: client.clientSecret, access_token: short.accessToken },
    });
  },
  refresh: (s, client, grant) =>
    tokenRequest(s.ctx, {
      url: `${graphBase(s.ctx.config)}/refresh_access_token`,
      what: 'Threads (GET /refresh_access_token)',
      clientAuth: 'none',
      client,
      method: 'GET',
      params: { grant_type: 'th_refresh_token', access_token: grant.accessToken },
    }),
  async identify(s, accessToken) {
    const me = await sendJson<unknown>(s.ctx, {
      what: 'Threads (GET /v1.0/me)',
      url: `${graphBase(s.ctx.config)}/v1.0/me?fields=id,username`,
      headers: { authorization: `Bearer ${accessToken}` },
      authenticated: true,
    });
    return { handle: `@${field(me, 'username', 'GET /v1.0/me')}`, userId: field(me, 'id', 'GET /v1.0/me') };
  },
};
