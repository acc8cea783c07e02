// A signed-in account's grant in use: the access token adapters receive (`Credentials.secret`),
// refreshed when it has little time left, at the moment it is needed. X rotates the refresh
// token on every refresh (the old one stops working), so the refresh happens EXACTLY ONCE across
// the instances sharing the database: the instance that wins a lease on the grant's version
// (compare-and-swap on Account.grantVersion) calls the token endpoint and commits the new grant
// as the next version; the others wait for that version and use the winner's token. A refresh
// the platform refuses marks the account dead: the inbox shows "sign in again".
import { setTimeout as sleep } from 'node:timers/promises';
import type { Credentials } from '../../adapters/types.js';
import { oauthFor } from '../../platforms/oauth.js';
import * as store from '../../store/oauth.js';
import type { AccountRow } from '../../store/oauth.js';
import { markAccountDead } from '../account-death.js';
import { adapterCredentials, sealedCredentials, unsealCredentials, type StoredCredentials } from '../account-secrets.js';
import type { ServiceDeps } from '../context.js';
import { retryLater } from '../../errors.js';
import { credentialDead, upstreamAppError } from '../upstream.js';
import { GrantRefused, type OAuthPlatform } from './platform.js';
import type { Platform } from '../../adapters/types.js';

/** How long the winner may take to refresh before another instance may try (a crashed instance's lease runs out). */
export const REFRESH_LEASE_MS = 30_000;
const WAIT_STEP_MS = 50;
const DEFAULT_AHEAD_MS = 10 * 60 * 1000;

export const REFRESH_REFUSED = 'the platform refused to renew the sign-in; sign in again (POST /accounts/authorizations)';

function due(p: OAuthPlatform, creds: StoredCredentials, now: Date): boolean {
  const at = creds.grant?.expires_at;
  if (!at) return false;
  return Date.parse(at) - now.getTime() < (p.refreshAheadMs ?? DEFAULT_AHEAD_MS);
}

const refreshable = (p: OAuthPlatform, creds: StoredCredentials) =>
  p.refresh !== undefined && (p.refreshesWithAccessToken === true || !!creds.grant?.refresh_token);

/**
 * The credentials to use now (adapters see only the access token): refreshed first when due. A
 * grant that ended and cannot be refreshed (LinkedIn without a refresh token, past its 60 days)
 * marks the account dead and is refused here, with what to do, rather than sent to the platform.
 */
export async function freshCredentials(deps: ServiceDeps, account: AccountRow, creds: StoredCredentials, proxyUrl: string | null): Promise<Credentials> {
  const p = oauthFor(account.platform);
  const now = deps.clock.now();
  if (!creds.grant || !p || account.status === 'dead' || !due(p, creds, now)) return adapterCredentials(creds);
  if (refreshable(p, creds)) return refreshOnce(deps, account.id, p, proxyUrl);
  const endsAt = creds.grant.expires_at;
  if (endsAt && Date.parse(endsAt) <= now.getTime()) {
    const why = `the ${account.platform} sign-in ended ${endsAt} and the platform gives no refresh token; sign in again (POST /accounts/authorizations)`;
    await markAccountDead(deps, null, account.id, why);
    throw credentialDead(account.platform as Platform, account.handle, why);
  }
  return adapterCredentials(creds);
}

async function refreshOnce(deps: ServiceDeps, accountId: string, p: OAuthPlatform, proxyUrl: string | null): Promise<Credentials> {
  const deadline = Date.now() + REFRESH_LEASE_MS + 5_000;
  for (;;) {
    const row = await store.findAccountRow(deps.db, accountId);
    if (!row) throw new Error(`account ${accountId} vanished during a refresh`);
    const creds = unsealCredentials(deps, row);
    const now = deps.clock.now();
    if (row.status === 'dead') throw credentialDead(row.platform as Platform, row.handle, row.lastProbeError);
    // Another instance refreshed meanwhile: its token is the one to use.
    if (!due(p, creds, now)) return adapterCredentials(creds);
    if (await store.leaseRefresh(deps.db, { id: row.id, version: row.grantVersion, now, until: new Date(now.getTime() + REFRESH_LEASE_MS) })) {
      return refreshAsWinner(deps, row, creds, p, proxyUrl);
    }
    if (Date.now() > deadline) throw retryLater('Another instance is renewing this account’s sign-in; try again in a moment.');
    await sleep(WAIT_STEP_MS);
  }
}

async function refreshAsWinner(deps: ServiceDeps, row: AccountRow, creds: StoredCredentials, p: OAuthPlatform, proxyUrl: string | null): Promise<Credentials> {
  const grant = creds.grant!;
  const client = p.client(deps.config, grant.instance);
  const now = deps.clock.now();
  const platform = row.platform as Platform;
  if (!client || !p.refresh) {
    await store.releaseLease(deps.db, row.id);
    throw credentialDead(
      platform,
      row.handle,
      `signing in to ${platform} is no longer configured on this service (${p.missingSettings(deps.config).join(', ')})`,
    );
  }
  let tokens;
  try {
    tokens = await p.refresh({ ctx: { outbound: deps.outbound, config: deps.config, proxyUrl, now }, instance: grant.instance, redirectUri: '' }, client, {
      accessToken: creds.secret,
      refreshToken: grant.refresh_token,
    });
  } catch (err) {
    if (err instanceof GrantRefused) {
      const why = `${REFRESH_REFUSED}: ${err.message}`.slice(0, 500);
      await markAccountDead(deps, null, row.id, why);
      await store.releaseLease(deps.db, row.id);
      throw credentialDead(platform, row.handle, why);
    }
    await store.releaseLease(deps.db, row.id);
    throw upstreamAppError(err, { platform, handle: row.handle, probe: false });
  }
  const next: StoredCredentials = {
    secret: tokens.accessToken,
    secondary: creds.secondary,
    // X answers a new refresh token each time (the old one is spent); a platform that answers none keeps the old.
    grant: { refresh_token: tokens.refreshToken ?? grant.refresh_token, expires_at: tokens.expiresAt?.toISOString() ?? null, instance: grant.instance },
  };
  // Not committed only when the person signed in again meanwhile (a newer grant stands); this token still works.
  await store.commitGrant(deps.db, {
    id: row.id,
    version: row.grantVersion,
    credentials: sealedCredentials(deps, row, next),
    reconnectBy: p.reconnectBy?.(tokens) ?? null,
    now,
  });
  return adapterCredentials(next);
}

/** The credentials of a stored account by id (the `check` operation): unsealed and refreshed when due. */
export async function credentialsOf(deps: ServiceDeps, account: AccountRow, proxyUrl: string | null): Promise<Credentials> {
  return freshCredentials(deps, account, unsealCredentials(deps, account), proxyUrl);
}
