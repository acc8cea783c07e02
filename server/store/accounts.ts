// Connected accounts. `credentials` and `proxyUrl` arrive here already sealed (services/crypto.ts).
import { first, type Db, type Row } from './database.js';

export type AccountRow = Row<'Account'>;

export function findAccount(db: Db, workspaceId: string, platform: string, handle: string): Promise<AccountRow | null> {
  return first(db.selectFrom('Account').selectAll().where('workspaceId', '=', workspaceId).where('platform', '=', platform).where('handle', '=', handle));
}

/** Every account of the workspace with exactly this handle (one per platform at most). */
export function findAccountsByHandle(db: Db, workspaceId: string, handle: string): Promise<AccountRow[]> {
  return db.selectFrom('Account').selectAll().where('workspaceId', '=', workspaceId).where('handle', '=', handle).orderBy('createdAt', 'asc').execute();
}

export type AccountWrite = Pick<AccountRow, 'id' | 'workspaceId' | 'platform' | 'handle' | 'credentials' | 'proxyUrl'> & {
  now: Date;
  /** `sign_in` for a grant from signing in (default `credential`: a pasted one). */
  connectedBy?: 'credential' | 'sign_in';
  /** When a signed-in grant ends without a refresh (null: it does not, or is refreshed). */
  reconnectBy?: Date | null;
};

/**
 * Adds the account, or replaces the credentials of the existing (platform, handle): a rotation.
 * The insert yields to the unique key (ON CONFLICT DO NOTHING), so that a concurrent connect of
 * the same account that created it first makes this one a rotation.
 */
export async function saveAccount(db: Db, a: AccountWrite): Promise<{ account: AccountRow; created: boolean }> {
  const secrets = {
    credentials: a.credentials,
    proxyUrl: a.proxyUrl,
    status: 'active',
    lastProbedAt: a.now,
    lastProbeError: null,
    updatedAt: a.now,
    connectedBy: a.connectedBy ?? 'credential',
    reconnectBy: a.reconnectBy ?? null,
    refreshLeaseUntil: null,
  };
  const inserted = await db
    .insertInto('Account')
    .values({ id: a.id, workspaceId: a.workspaceId, platform: a.platform, handle: a.handle, createdAt: a.now, ...secrets })
    .onConflict((oc) => oc.columns(['workspaceId', 'platform', 'handle']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { account: inserted, created: true };
  const account = await db
    .updateTable('Account')
    // A new grant is a new version: a refresh that read the old one must not overwrite it.
    .set((eb) => ({ ...secrets, grantVersion: eb('grantVersion', '+', 1) }))
    .where('workspaceId', '=', a.workspaceId)
    .where('platform', '=', a.platform)
    .where('handle', '=', a.handle)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { account, created: false };
}

/** Records a probe's outcome (a failed probe during ingest or publish marks the account dead). */
export async function setProbeResult(db: Db, q: { id: string; status: 'active' | 'dead'; error: string | null; now: Date }): Promise<{ count: number }> {
  const r = await db
    .updateTable('Account')
    .set({ status: q.status, lastProbeError: q.error, lastProbedAt: q.now, updatedAt: q.now })
    .where('id', '=', q.id)
    .executeTakeFirst();
  return { count: Number(r.numUpdatedRows) };
}

/** The account with this id, in the workspace. */
export function findAccountById(db: Db, workspaceId: string, id: string): Promise<AccountRow | null> {
  return first(db.selectFrom('Account').selectAll().where('workspaceId', '=', workspaceId).where('id', '=', id));
}

/** Whether the workspace has an account of one of `platforms` (any status). */
export async function hasAccountOn(db: Db, workspaceId: string, platforms: string[]): Promise<boolean> {
  const row = await db.selectFrom('Account').select('id').where('workspaceId', '=', workspaceId).where('platform', 'in', platforms).limit(1).executeTakeFirst();
  return row !== undefined;
}
