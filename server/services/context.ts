// What every domain service needs: the database, time, ids, and the instance's secrets.
import type { components } from '../../generated/api.js';
import type { Db, Provider } from '../store/database.js';
import type { IdempotencyTx } from '../store/idempotency.js';
import type { Clock, IdSource } from '../lib/clock.js';
import type { Config } from '../config.js';
import type { OutboundClient } from '../outbound/types.js';
import type { TokenCache } from './token-cache.js';

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
  /** The bearer check's memory of tokens that authenticated, this instance's (services/token-cache.ts). */
  tokenCache: TokenCache<Authenticated>;
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

/**
 * Who made a request: a person (a review desk session, `cps_`) or an agent (a token, `cpa_` or the
 * first-launch one). `id` is the token's or session's id (`tok_…`, as `GET /tokens` lists it);
 * `name` the token's name or the person's (null for the first-launch token).
 */
export interface Actor {
  kind: 'agent' | 'person';
  id: string;
  name: string | null;
}

/** The caller of a domain operation: the workspace its token is bound to, and what the token may do. */
export interface Caller {
  workspaceId: string;
  tokenId: string;
  /** The token's scopes (the approval gate asks whether it holds `approve`). */
  scopes: readonly components['schemas']['TokenScope'][];
  /** Set by the bearer check (services/tokens.ts `authenticate`); absent for work the service does by itself. Read it with `actorOf`. */
  actor?: Actor;
}

/** Who the caller is: its actor, or an agent known only by its token id when the caller was made without one. */
export const actorOf = (caller: Caller): Actor => caller.actor ?? { kind: 'agent', id: caller.tokenId, name: null };

/** What the bearer check (services/tokens.ts `authenticate`) answers. */
export type AuthResult =
  | { ok: true; caller: Caller; scopes: components['schemas']['TokenScope'][]; expiresAt: Date | null }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'no_token_yet' | 'revoked' | 'expired' };

/** A success of the bearer check, as the token cache keeps it. */
export type Authenticated = Extract<AuthResult, { ok: true }>;
