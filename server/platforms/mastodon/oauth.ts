// Signing in to Mastodon (any instance): the service registers itself on the instance once
// (`POST /api/v1/apps`, cached per instance in OAuthClient), then the authorization code flow
// with PKCE S256 at /oauth/authorize and /oauth/token. Mastodon's tokens do not expire: no
// refresh. https://docs.joinmastodon.org/methods/apps/ and /methods/oauth/
import { sendJson } from '../../adapters/http.js';
import { field, tokenRequest, type OAuthPlatform } from '../../services/oauth/platform.js';
import { mastodonAdapter } from './adapter.js';

const base = (instance: string | null) => {
  if (!instance) throw new Error('a Mastodon sign-in needs its instance');
  return `https://${instance}`;
};

export const mastodonOAuth: OAuthPlatform = {
  platform: 'mastodon',
  scopes: ['read', 'write:statuses', 'write:media'],
  missingSettings: () => [],
  client: () => null,
  async register(s) {
    const body = await sendJson<unknown>(s.ctx, {
      what: 'the instance (POST /api/v1/apps)',
      url: `${base(s.instance)}/api/v1/apps`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Content Pipeline', redirect_uris: s.redirectUri, scopes: mastodonOAuth.scopes.join(' ') }),
    });
    return { clientId: field(body, 'client_id', 'POST /api/v1/apps'), clientSecret: field(body, 'client_secret', 'POST /api/v1/apps') };
  },
  authorizeUrl: (_config, instance) => `${base(instance)}/oauth/authorize`,
  exchangeCode: (s, client, code, verifier) =>
    tokenRequest(s.ctx, {
      url: `${base(s.instance)}/oauth/token`,
      what: 'the instance (POST /oauth/token)',
      clientAuth: 'body',
      client,
      params: { grant_type: 'authorization_code', code, redirect_uri: s.redirectUri, code_verifier: verifier, scope: mastodonOAuth.scopes.join(' ') },
    }),
  async identify(s, accessToken) {
    const me = await sendJson<unknown>(s.ctx, {
      what: 'verify_credentials',
      url: `${base(s.instance)}/api/v1/accounts/verify_credentials`,
      headers: { authorization: `Bearer ${accessToken}` },
      authenticated: true,
    });
    const user = field(me, 'username', 'verify_credentials');
    return { handle: mastodonAdapter.normalizeHandle(`@${user}@${s.instance ?? ''}`), userId: field(me, 'id', 'verify_credentials') };
  },
};
