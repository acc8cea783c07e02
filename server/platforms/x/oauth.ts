// Signing in to X: OAuth 2.0 authorization code with PKCE, as a confidential client (the
// operator's app: X_CLIENT_ID / X_CLIENT_SECRET, sent as HTTP Basic to the token endpoint).
// Access tokens live two hours; `offline.access` gives a refresh token that ROTATES on every
// refresh (the old one stops working), so a refresh must happen once across instances
// (services/oauth/grants.ts). https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/authorization-code
import { sendJson } from '../../adapters/http.js';
import type { Config } from '../../config.js';
import { field, tokenRequest, type OAuthPlatform } from '../../services/oauth/platform.js';

const authBase = (config: Config) => config.oauthBaseUrls.x ?? 'https://x.com';
const apiBase = (config: Config) => config.oauthBaseUrls.x ?? 'https://api.x.com';

export const xOAuth: OAuthPlatform = {
  platform: 'x',
  scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
  refreshAheadMs: 10 * 60 * 1000,
  missingSettings: (config) => (config.oauthApps.x ? [] : ['X_CLIENT_ID', 'X_CLIENT_SECRET']),
  client: (config) => config.oauthApps.x,
  authorizeUrl: (config) => `${authBase(config)}/i/oauth2/authorize`,
  exchangeCode: (s, client, code, verifier) =>
    tokenRequest(s.ctx, {
      url: `${apiBase(s.ctx.config)}/2/oauth2/token`,
      what: 'X (POST /2/oauth2/token)',
      clientAuth: 'basic',
      client,
      params: { grant_type: 'authorization_code', code, redirect_uri: s.redirectUri, code_verifier: verifier, client_id: client.clientId },
    }),
  refresh: (s, client, grant) =>
    tokenRequest(s.ctx, {
      url: `${apiBase(s.ctx.config)}/2/oauth2/token`,
      what: 'X (refresh, POST /2/oauth2/token)',
      clientAuth: 'basic',
      client,
      params: { grant_type: 'refresh_token', refresh_token: grant.refreshToken ?? '', client_id: client.clientId },
    }),
  async identify(s, accessToken) {
    const me = await sendJson<{ data?: unknown }>(s.ctx, {
      what: 'X (GET /2/users/me)',
      url: `${apiBase(s.ctx.config)}/2/users/me`,
      headers: { authorization: `Bearer ${accessToken}` },
      authenticated: true,
    });
    return { handle: `@${field(me.data, 'username', 'GET /2/users/me')}`, userId: field(me.data, 'id', 'GET /2/users/me') };
  },
};
