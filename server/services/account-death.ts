// An account the platform stopped accepting (a refused credential in ingest or publish, a refused
// or ended sign-in renewal) is marked dead, and the record of who did what says the service did
// it (actor `system`), once: an account already dead records nothing again.
import { setProbeResult } from '../store/accounts.js';
import { transaction, type Db } from '../store/database.js';
import { findAccountRow } from '../store/oauth.js';
import { recordAudit, SYSTEM } from './audit.js';
import type { ServiceDeps } from './context.js';

/** Marks the account dead with why (in `tx` when given, else in a transaction of its own), and records it. */
export async function markAccountDead(deps: Pick<ServiceDeps, 'db' | 'clock' | 'ids'>, tx: Db | null, accountId: string, why: string): Promise<void> {
  const work = async (db: Db) => {
    const before = await findAccountRow(db, accountId);
    const error = why.slice(0, 500);
    await setProbeResult(db, { id: accountId, status: 'dead', error, now: deps.clock.now() });
    if (!before || before.status === 'dead') return;
    await recordAudit(db, deps, {
      workspaceId: before.workspaceId,
      actor: SYSTEM,
      action: 'account.dead',
      subject: { type: 'account', id: accountId },
      summary: `${before.platform} ${before.handle} stopped working: ${error}`.slice(0, 300),
      detail: { platform: before.platform, handle: before.handle },
    });
  };
  await (tx ? work(tx) : transaction(deps.db, work));
}
