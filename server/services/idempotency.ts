// Idempotency for operations whose body carries `idempotency_key`: the first successful answer
// is stored and replayed for the same key and request; see "Idempotency" in the description. The
// rules live here (what a request's fingerprint is, how long a claim holds and a record is kept,
// when a key replays, refuses or waits, when the answer is stored); the router (http/router.ts)
// only maps the outcome to HTTP, and the store (store/idempotency.ts) only reads and writes rows.
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
  return createHash('sha256')
    .update(stringify({ path: pathParams, body: rest }) ?? '')
    .digest('hex');
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

/** What the work of a claimed key may do: store its answer inside the transaction that commits the work. */
export interface IdempotencyScope {
  completeIn(tx: store.IdempotencyTx, reply: { status: number; body: unknown }): Promise<void>;
}

export type IdempotentOutcome<R> = { replayed: true; reply: { status: number; body: unknown } } | { replayed: false; reply: R };

/**
 * Runs `work` at most once per key: the first request claims the key and runs it; a 2xx answer is
 * stored (inside the work's own transaction when it called `scope.completeIn`, else after it), any
 * other answer or an error releases the key for a retry. A later request with the same key and the
 * same fingerprint gets the stored answer (`replayed`); with another fingerprint it is a 422 naming
 * `idempotency_key`; while the first is still running, a 409 retry_later.
 */
export async function runIdempotent<R extends { status: number; body: unknown }>(
  deps: ClaimStore,
  k: { workspaceId: string; operation: string; key: string; pathParams: unknown; body: Record<string, unknown> },
  work: (scope: IdempotencyScope) => Promise<R>,
): Promise<IdempotentOutcome<R>> {
  const c = await claim(deps, { workspaceId: k.workspaceId, operation: k.operation, key: k.key, hash: requestHash(k.pathParams, k.body) });
  if (c.kind === 'replay') return { replayed: true, reply: { status: c.reply.status, body: JSON.parse(c.reply.body) as unknown } };
  // What the work stored in its own transaction (completeIn), if it did.
  let stored: StoredReply | null = null;
  const scope: IdempotencyScope = {
    completeIn: async (tx, r) => {
      const reply = { status: r.status, body: JSON.stringify(r.body) };
      await c.complete(reply, tx);
      stored = reply;
    },
  };
  let reply: R;
  try {
    reply = await work(scope);
  } catch (err) {
    // A reply stored by a committed transaction stays (release only removes a claim in progress).
    await c.release();
    throw err;
  }
  if (reply.status >= 200 && reply.status < 300) {
    const final = { status: reply.status, body: JSON.stringify(reply.body) };
    const s = stored as StoredReply | null;
    if (s?.status !== final.status || s.body !== final.body) await c.complete(final);
  } else await c.release();
  return { replayed: false, reply };
}

export async function cleanupExpired(db: Db, clock: Clock): Promise<number> {
  return store.deleteExpiredKeys(db, clock.now());
}
