// An account's credentials at rest: sealed with AES-256-GCM (crypto.ts), bound to the account's
// workspace, platform and handle. A signed-in account's credentials also hold its grant (the
// refresh token and when the access token expires: services/oauth/grants.ts).
import type { Credentials } from '../adapters/types.js';
import type { ServiceDeps } from './context.js';
import { credentialCipher } from './crypto.js';

export interface AccountKey {
  workspaceId: string;
  platform: string;
  handle: string;
}

/** What signing in gave, kept with the access token (`Credentials.secret`). */
export interface StoredGrant {
  refresh_token: string | null;
  /** When the access token expires (ISO); null: the platform said nothing (it lives until revoked). */
  expires_at: string | null;
  /** The Mastodon instance; null elsewhere. */
  instance: string | null;
}

export type StoredCredentials = Credentials & { grant?: StoredGrant };

export const accountAad = (a: AccountKey, part: 'credentials' | 'proxy') => `account|${a.workspaceId}|${a.platform}|${a.handle}|${part}`;

/** Credentials as stored: sealed, bound to the account's workspace, platform and handle. */
export function sealedCredentials(deps: Pick<ServiceDeps, 'config'>, key: AccountKey, creds: StoredCredentials): string {
  return credentialCipher(deps.config).encrypt(JSON.stringify(creds), accountAad(key, 'credentials'));
}

export function unsealCredentials(deps: Pick<ServiceDeps, 'config'>, account: AccountKey & { credentials: string }): StoredCredentials {
  return JSON.parse(credentialCipher(deps.config).decrypt(account.credentials, accountAad(account, 'credentials'))) as StoredCredentials;
}

/** What an adapter receives: the access token and the secondary value, never the grant. */
export const adapterCredentials = (c: StoredCredentials): Credentials => ({ secret: c.secret, secondary: c.secondary });
