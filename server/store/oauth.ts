// Connections by signing in (OAuthAuthorization), the service's app registrations on Mastodon
// instances (OAuthClient), and the grant of a signed-in account (Account.grantVersion /
// refreshLeaseUntil): services/oauth/. Secrets arrive here already sealed.
import { first, type Db, type Row } from './database.js';

export type AuthorizationRow = Row<'OAuthAuthorization'>;
export type AccountRow = Row<'Account'>;

export async function insertAuthorization(db: Db, row: AuthorizationRow): Promise<void> {
  await db.insertInto('OAuthAuthorization').values(row).execute();
}

export function findAuthorization(db: Db, workspaceId: string, id: string): Promise<AuthorizationRow | null> {
  return first(db.selectFrom('OAuthAuthorization').selectAll().where('workspaceId', '=', workspaceId).where('id', '=', id));
}

export function findAuthorizationByState(db: Db, stateHash: string): Promise<AuthorizationRow | null> {
  return first(db.selectFrom('OAuthAuthorization').selectAll().where('stateHash', '=', stateHash));
}

/**
 * Spends the state: empties the sealed verifier of a pending authorization, once. Answers whether
 * this caller did (a second callback with the same state finds it spent and changes nothing).
 */
export async function spendAuthorization(db: Db, id: string, verifier: string, now: Date): Promise<boolean> {
  const r = await db
    .updateTable('OAuthAuthorization')
    .set({ verifier: '', updatedAt: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('verifier', '=', verifier)
    .where('verifier', '!=', '')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function finishAuthorization(
  db: Db,
  q: { id: string; status: 'connected' | 'failed'; accountId: string | null; failure: string | null; now: Date },
): Promise<void> {
  await db
    .updateTable('OAuthAuthorization')
    .set({ status: q.status, accountId: q.accountId, failure: q.failure, verifier: '', updatedAt: q.now })
    .where('id', '=', q.id)
    .execute();
}

/** Marks the authorizations that nobody finished in time `failed` (`expired`); answers how many. */
export async function expireAuthorizations(db: Db, now: Date): Promise<number> {
  const r = await db
    .updateTable('OAuthAuthorization')
    .set({ status: 'failed', failure: 'expired', verifier: '', updatedAt: now })
    .where('status', '=', 'pending')
    .where('expiresAt', '<=', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Removes the authorizations started before `before` (their state long expired); answers how many. */
export async function deleteAuthorizations(db: Db, before: Date): Promise<number> {
  const r = await db.deleteFrom('OAuthAuthorization').where('createdAt', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export function findClient(db: Db, instance: string, redirectUri: string): Promise<Row<'OAuthClient'> | null> {
  return first(db.selectFrom('OAuthClient').selectAll().where('instance', '=', instance).where('redirectUri', '=', redirectUri));
}

/** Keeps the first registration of (instance, redirect) when two starts race: answers the one stored. */
export async function saveClient(db: Db, row: Row<'OAuthClient'>): Promise<Row<'OAuthClient'>> {
  await db
    .insertInto('OAuthClient')
    .values(row)
    .onConflict((oc) => oc.columns(['instance', 'redirectUri']).doNothing())
    .execute();
  const stored = await findClient(db, row.instance, row.redirectUri);
  if (!stored) throw new Error('the OAuth client registration vanished');
  return stored;
}

export function findAccountRow(db: Db, id: string): Promise<AccountRow | null> {
  return first(db.selectFrom('Account').selectAll().where('id', '=', id));
}

/**
 * Takes the right to refresh the grant at `version`: only while nobody holds it (or the holder's
 * lease ran out) and the grant is still that version. One instance wins; the others wait for the
 * version to change and read the winner's token.
 */
export async function leaseRefresh(db: Db, q: { id: string; version: number; now: Date; until: Date }): Promise<boolean> {
  const r = await db
    .updateTable('Account')
    .set({ refreshLeaseUntil: q.until })
    .where('id', '=', q.id)
    .where('grantVersion', '=', q.version)
    .where((eb) => eb.or([eb('refreshLeaseUntil', 'is', null), eb('refreshLeaseUntil', '<=', q.now)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Stores the refreshed grant if the grant is still `version` (compare-and-swap), releasing the lease. */
export async function commitGrant(db: Db, q: { id: string; version: number; credentials: string; reconnectBy: Date | null; now: Date }): Promise<boolean> {
  const r = await db
    .updateTable('Account')
    .set((eb) => ({
      credentials: q.credentials,
      reconnectBy: q.reconnectBy,
      grantVersion: eb('grantVersion', '+', 1),
      refreshLeaseUntil: null,
      updatedAt: q.now,
    }))
    .where('id', '=', q.id)
    .where('grantVersion', '=', q.version)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function releaseLease(db: Db, id: string): Promise<void> {
  await db.updateTable('Account').set({ refreshLeaseUntil: null }).where('id', '=', id).execute();
}

/** Signed-in accounts of the workspace that need the person: refused (dead), or ending by `until`. */
export function accountsNeedingSignIn(db: Db, workspaceId: string, until: Date): Promise<AccountRow[]> {
  return db
    .selectFrom('Account')
    .selectAll()
    .where('workspaceId', '=', workspaceId)
    .where('connectedBy', '=', 'sign_in')
    .where((eb) => eb.or([eb('status', '=', 'dead'), eb('reconnectBy', '<=', until)]))
    .orderBy('id')
    .limit(50)
    .execute();
}
