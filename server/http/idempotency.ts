// Idempotency for operations whose body carries `idempotency_key`: the first successful response
// is stored and replayed for the same key and body; see "Idempotency" in the description.
import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { retryLater, validationFailed } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { Db, Provider } from '../store/database.js';
import { groupCommit } from '../store/group-commit.js';
import * as store from '../store/idempotency.js';

export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** How long a claim holds before another request may take it over (its holder presumed dead). */
export const LEASE_MS = 60 * 1000;

export interface StoredReply {
  status: number;
  body: string;
}

export type Claim =
  | {
      kind: 'claimed';
      release(): Promise<void>;
      /** Stores the reply; with `tx`, inside the transaction that does the work (it commits with it). */
      complete(reply: StoredReply, tx?: store.IdempotencyTx): Promise<void>;
    }
  | { kind: 'replay'; reply: StoredReply };

/** The fingerprint of a request: its path parameters and its body without the key, in canonical JSON. */
export function requestHash(pathParams: unknown, body: Record<string, unknown>): string {
  const { idempotency_key: _key, ...rest } = body;
  return createHash('sha256').update(stringify({ path: pathParams, body: rest }) ?? '').digest('hex');
}

/** What a claim needs: the database and its provider, and the clock. */
export interface ClaimStore {
  db: Db;
  provider: Provider;
  clock: Clock;
}

export async function claim({ db, provider, clock }: ClaimStore, k: { workspaceId: string; operation: string; key: string; hash: string }): Promise<Claim> {
  const now = clock.now();
  const id = { workspaceId: k.workspaceId, operation: k.operation, key: k.key };
  const claimed = {
    ...id,
    requestHash: k.hash,
    now,
    lockedUntil: new Date(now.getTime() + LEASE_MS),
    expiresAt: new Date(now.getTime() + RETENTION_MS),
  };
  // Claims of concurrent requests commit together (group-commit.ts): one commit for all of them.
  // claimKey is compare-and-sets, safe without a transaction when it is alone.
  const existing = await groupCommit(db, 'requests', (tx) => store.claimKey(tx, provider, claimed), { bare: true });
  if (!existing) {
    return {
      kind: 'claimed',
      release: () => store.releaseKey(db, id),
      complete: (reply, tx) => store.completeKey(tx ?? db, { ...id, status: reply.status, body: reply.body }),
    };
  }
  if (existing.requestHash !== k.hash) {
    throw validationFailed('idempotency_key', 'was already used with a different request; use a new key for a new request.');
  }
  if (existing.state !== 'completed' || existing.responseStatus === null || existing.responseBody === null) {
    throw retryLater('A request with this idempotency_key is still being processed; retry in a moment.');
  }
  return { kind: 'replay', reply: { status: existing.responseStatus, body: existing.responseBody } };
}

export async function cleanupExpired(db: Db, clock: Clock): Promise<number> {
  return store.deleteExpiredKeys(db, clock.now());
}
