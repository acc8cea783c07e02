// Connected accounts. `credentials` and `proxyUrl` arrive here already sealed (services/crypto.ts).
import type { Db } from './database.js';

export type AccountRow = NonNullable<Awaited<ReturnType<Db['account']['findFirst']>>>;

export function findAccount(db: Db, workspaceId: string, platform: string, handle: string) {
  return db.account.findUnique({ where: { workspaceId_platform_handle: { workspaceId, platform, handle } } });
}

/** Every account of the workspace with exactly this handle (one per platform at most). */
export function findAccountsByHandle(db: Db, workspaceId: string, handle: string) {
  return db.account.findMany({ where: { workspaceId, handle }, orderBy: { createdAt: 'asc' } });
}

export interface AccountWrite {
  id: string;
  workspaceId: string;
  platform: string;
  handle: string;
  credentials: string;
  proxyUrl: string | null;
  now: Date;
}

/** Adds the account, or replaces the credentials of the existing (platform, handle): a rotation. */
export async function saveAccount(db: Db, a: AccountWrite): Promise<{ account: AccountRow; created: boolean }> {
  const secrets = { credentials: a.credentials, proxyUrl: a.proxyUrl, status: 'active', lastProbedAt: a.now, lastProbeError: null, updatedAt: a.now };
  const rotate = async () => ({
    account: await db.account.update({ where: { workspaceId_platform_handle: { workspaceId: a.workspaceId, platform: a.platform, handle: a.handle } }, data: secrets }),
    created: false,
  });
  if (await findAccount(db, a.workspaceId, a.platform, a.handle)) return rotate();
  try {
    const account = await db.account.create({ data: { id: a.id, workspaceId: a.workspaceId, platform: a.platform, handle: a.handle, createdAt: a.now, ...secrets } });
    return { account, created: true };
  } catch (err) {
    // A concurrent connect of the same account created it first: this one is a rotation.
    if ((err as { code?: string }).code !== 'P2002') throw err;
    return rotate();
  }
}

/** Records a probe's outcome (a failed probe during ingest or publish marks the account dead). */
export function setProbeResult(db: Pick<Db, 'account'>, q: { id: string; status: 'active' | 'dead'; error: string | null; now: Date }) {
  return db.account.updateMany({ where: { id: q.id }, data: { status: q.status, lastProbeError: q.error, lastProbedAt: q.now, updatedAt: q.now } });
}
