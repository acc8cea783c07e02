// Connected accounts: connect (add or rotate) with a synchronous probe, and the decrypted
// credentials for adapters. Credentials and proxies are sealed with AES-256-GCM (crypto.ts)
// before they reach the database, and never leave the service: no operation returns them and
// nothing logs them.
import type { components } from '../../generated/api.js';
import { adapterFor, type AdapterContext, type Credentials, type Platform, type PlatformAdapter } from '../adapters/index.js';
import * as store from '../store/accounts.js';
import type { AccountRow } from '../store/accounts.js';
import type { Caller, ServiceDeps } from './context.js';
import { accountAad, sealedCredentials, unsealCredentials } from './account-secrets.js';
import { credentialCipher } from './crypto.js';
import { freshCredentials } from './oauth/grants.js';
import { AdapterError } from '../adapters/types.js';
import { AppError, notFound, validationFailed } from '../errors.js';
import { oauthFor } from '../platforms/oauth.js';
import { credentialDead, credentialMissing, upstreamAppError } from './upstream.js';

/** Marks an account dead after the platform refused its credential (in ingest or publish), recorded as the service's doing. */
export { markAccountDead } from './account-death.js';

type ConnectRequest = components['schemas']['ConnectAccountRequest'];
type S = components['schemas'];

/** Platforms whose accounts only signing in connects (no pasted token path). */

export { accountAad, sealedCredentials } from './account-secrets.js';

export function accountView(a: AccountRow): S['Account'] {
  return {
    id: a.id,
    platform: a.platform as Platform,
    handle: a.handle,
    status: a.status as S['Account']['status'],
    has_proxy: a.proxyUrl !== null,
    connected_by: a.connectedBy === 'sign_in' ? 'sign_in' : 'credential',
    reconnect_by: a.reconnectBy?.toISOString() ?? null,
    last_probed_at: a.lastProbedAt.toISOString(),
    last_probe_error: a.status === 'dead' ? a.lastProbeError : null,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

export function adapterContext(deps: ServiceDeps, proxyUrl: string | null): AdapterContext {
  return { outbound: deps.outbound, config: deps.config, proxyUrl, now: deps.clock.now() };
}

/** Adds the account or rotates its credentials, after a successful probe. A failed probe stores nothing. */
export async function connectAccount(deps: ServiceDeps, caller: Caller, body: ConnectRequest) {
  const adapter = adapterFor(body.platform);
  const handle = normalize(adapter, body.handle, body.platform);
  const creds: Credentials = { secret: body.auth_material, secondary: body.secondary_auth ?? null };
  const proxyUrl = body.proxy_url ?? null;
  // The contract's pattern keeps to the characters a URL may have; the whole must also be one
  // (`https://[L` has only such characters), before the probe goes through it.
  if (proxyUrl !== null && !URL.canParse(proxyUrl))
    throw validationFailed('body.proxy_url', 'is not a URL (an http://, https:// or socks5:// address of the proxy).');
  try {
    await adapter.probe(adapterContext(deps, proxyUrl), handle, creds);
  } catch (err) {
    throw upstreamAppError(err, { platform: body.platform, handle, probe: true });
  }
  const key = { workspaceId: caller.workspaceId, platform: body.platform, handle };
  const { account, created } = await store.saveAccount(deps.db, {
    id: deps.ids.id('acc'),
    ...key,
    credentials: sealedCredentials(deps, key, creds),
    proxyUrl: proxyUrl === null ? null : credentialCipher(deps.config).encrypt(proxyUrl, accountAad(key, 'proxy')),
    now: deps.clock.now(),
  });
  return { result: created ? ('added' as const) : ('rotated' as const), account: accountView(account) };
}

function normalize(adapter: PlatformAdapter, handle: string, platform: Platform): string {
  try {
    return adapter.normalizeHandle(handle);
  } catch (err) {
    throw upstreamAppError(err, { platform, handle, probe: true });
  }
}

export interface UsableAccount {
  account: AccountRow;
  creds: Credentials;
  proxyUrl: string | null;
}

/** The account of (platform, handle) with its credentials decrypted, or null when none is connected. */
export async function findUsableAccount(deps: ServiceDeps, workspaceId: string, platform: Platform, rawHandle: string): Promise<UsableAccount | null> {
  let handle: string;
  try {
    handle = adapterFor(platform).normalizeHandle(rawHandle);
  } catch {
    return null;
  }
  const account = await store.findAccount(deps.db, workspaceId, platform, handle);
  if (!account) return null;
  const cipher = credentialCipher(deps.config);
  const proxyUrl = account.proxyUrl === null ? null : cipher.decrypt(account.proxyUrl, accountAad(account, 'proxy'));
  // A signed-in account's access token, refreshed first when it is about to expire.
  const creds = await freshCredentials(deps, account, unsealCredentials(deps, account), proxyUrl);
  return { account, creds, proxyUrl };
}

/**
 * The account an operation needs: 424 `credential_missing` when the platform needs one and none
 * is connected, 424 `credential_dead` when its last probe failed. Null for a platform that needs
 * no credential and has no account (rss).
 */
export async function requireAccount(deps: ServiceDeps, workspaceId: string, platform: Platform, handle: string): Promise<UsableAccount | null> {
  const found = await findUsableAccount(deps, workspaceId, platform, handle);
  if (!found) {
    if (adapterFor(platform).needsCredentials) throw credentialMissing(platform, handle);
    return null;
  }
  if (found.account.status === 'dead') throw credentialDead(platform, handle, found.account.lastProbeError);
  return found;
}

/** The platform of a handle that names a connected account (an archive's name can look like anything). */
export async function platformOfConnectedHandle(deps: ServiceDeps, workspaceId: string, handle: string): Promise<Platform | null> {
  const accounts = await store.findAccountsByHandle(deps.db, workspaceId, handle);
  return accounts.length === 1 ? (accounts[0].platform as Platform) : null;
}

/**
 * Uses the account's credential as a publish would (a signed-in account's token refreshed first
 * when due) and asks the platform whose it is: `active` when accepted, `dead` when refused.
 */
export async function checkAccount(deps: ServiceDeps, caller: Caller, id: string): Promise<S['Account']> {
  const account = await store.findAccountById(deps.db, caller.workspaceId, id);
  if (!account) throw notFound('account');
  const platform = account.platform as Platform;
  const proxyUrl = account.proxyUrl === null ? null : credentialCipher(deps.config).decrypt(account.proxyUrl, accountAad(account, 'proxy'));
  const now = deps.clock.now();
  let creds: Credentials;
  try {
    creds = await freshCredentials(deps, account, unsealCredentials(deps, account), proxyUrl);
  } catch (err) {
    // A refused renewal marked the account dead: that is the check's answer.
    if (err instanceof AppError && err.code === 'credential_dead')
      return accountView((await store.findAccountById(deps.db, caller.workspaceId, id)) ?? account);
    throw err;
  }
  const ctx = adapterContext(deps, proxyUrl);
  const signIn = account.connectedBy === 'sign_in' ? oauthFor(platform) : null;
  try {
    if (signIn) {
      const who = await signIn.identify({ ctx, instance: unsealCredentials(deps, account).grant?.instance ?? null, redirectUri: '' }, creds.secret);
      if (who.handle !== account.handle) throw new AdapterError('credential_rejected', `the credential now belongs to ${who.handle}`);
    } else {
      await adapterFor(platform).probe(ctx, account.handle, creds);
    }
  } catch (err) {
    if (!(err instanceof AdapterError) || err.kind !== 'credential_rejected') throw upstreamAppError(err, { platform, handle: account.handle, probe: false });
    await store.setProbeResult(deps.db, { id, status: 'dead', error: err.message.slice(0, 500), now });
    return accountView((await store.findAccountById(deps.db, caller.workspaceId, id)) ?? account);
  }
  await store.setProbeResult(deps.db, { id, status: 'active', error: null, now });
  return accountView((await store.findAccountById(deps.db, caller.workspaceId, id)) ?? account);
}
