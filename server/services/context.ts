// What every domain service needs: the database, time, ids, and the instance's secrets.
import type { components } from '../../generated/api.js';
import type { Db, Provider } from '../store/database.js';
import type { IdempotencyTx } from '../store/idempotency.js';
import type { Clock, IdSource } from '../lib/clock.js';
import type { Config } from '../config.js';
import type { OutboundClient } from '../outbound/types.js';

/** Wakes the event streams after a transaction that recorded events has committed. */
export interface EventWaker {
  wake(): void;
}

export interface ServiceDeps {
  db: Db;
  provider: Provider;
  clock: Clock;
  ids: IdSource;
  /** Key that signs list cursors; the same on every instance sharing the database. */
  cursorKey: Buffer;
  config: Config;
  outbound: OutboundClient;
  events: EventWaker;
  jobs: JobKicker;
}

/** Wakes the job worker after a transaction that queued a run has committed (server/jobs). */
export interface JobKicker {
  /** With `lane`, only that lane's runs were queued: the worker looks at that lane alone (registry.ts `Lane`). */
  kick(lane?: 'default' | 'drafting'): void;
}

/**
 * Called inside the transaction that commits an operation's work, with the operation's answer,
 * so that what depends on the answer (the idempotency record) commits with the work.
 */
export type CommitHook<T> = (tx: IdempotencyTx, answer: T) => Promise<void>;

/** The caller of a domain operation: the workspace its token is bound to, and what the token may do. */
export interface Caller {
  workspaceId: string;
  tokenId: string;
  /** The token's scopes (the approval gate asks whether it holds `approve`). */
  scopes: readonly components['schemas']['TokenScope'][];
  /** The token's name; null for the unnamed first-launch token. Who approved, see `approverName` (services/approval.ts). */
  tokenName: string | null;
}
