// Signing in to LinkedIn: OpenID Connect (`openid profile`) plus `w_member_social`, with the
// operator's app (LINKEDIN_CLIENT_ID / LINKEDIN_CLIENT_SECRET). The member's URN comes from
// /v2/userinfo (`sub`): the account's handle is `urn:li:person:<sub>`, what a post's `author` is.
// Tokens live 60 days and most apps get no refresh token: the account then carries
// `reconnect_by` and the inbox warns a week before. https://learn.microsoft.com/linkedin/shared/authentication/authorization-code-flow
import { sendJson } from '../../adapters/http.js';
import type { Config } from '../../config.js';
import { field, tokenRequest, type OAuthPlatform } from '../../services/oauth/platform.js';

const wwwBase = (config: Config) => config.oauthBaseUrls.linkedin ?? 'https://www.linkedin.com';
const apiBase = (config: Config) => config.oauthBaseUrls.linkedin ?? 'https://api.linkedin.com';

export const linkedinOAuth: OAuthPlatform = {
  platform: 'linkedin',
  scopes: ['openid', 'profile', 'w_member_social'],
  refreshAheadMs: 24 * 60 * 60 * 1000,
  missingSettings: (config) => (config.oauthApps.linkedin ? [] : ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET']),
  client: (config) => config.oauthApps.linkedin,
  authorizeUrl: (config) => `${wwwBase(config)}/oauth/v2/authorization`,
  exchangeCode: (s, client, code, verifier) =>
    tokenRequest(s.ctx, {
      url: `${wwwBase(s.ctx.config)}/oauth/v2/accessToken`,
      what: 'LinkedIn (POST /oauth/v2/accessToken)',
      clientAuth: 'body',
      client,
      params: { grant_type: 'authorization_code', code, redirect_uri: s.redirectUri, code_verifier: verifier },
    }),
  // Only apps LinkedIn grants refresh tokens to have one; the others reconnect by `reconnect_by`.
  refresh: (s, client, grant) =>
    tokenRequest(s.ctx, {
      url: `${wwwBase(s.ctx.config)}/oauth/v2/accessToken`,
      what: 'LinkedIn (refresh, POST /oauth/v2/accessToken)',
      clientAuth: 'body',
      client,
      params: { grant_type: 'refresh_token', refresh_token: grant.refreshToken ?? '' },
    }),
  reconnectBy: (tokens) => (tokens.refreshToken ? null : tokens.expiresAt),
  async identify(s, accessToken) {
    const me = await sendJson<unknown>(s.ctx, {
      what: 'LinkedIn (GET /v2/userinfo)',
      url: `${apiBase(s.ctx.config)}/v2/userinfo`,
      headers: { authorization: `Bearer ${accessToken}` },
      authenticated: true,
    });
    const sub = field(me, 'sub', 'GET /v2/userinfo');
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(sub)) throw new Error('LinkedIn answered a member id of an unexpected form');
    return { handle: `urn:li:person:${sub}`, userId: sub };
  },
};
