// Workspaces and their agent tokens (stored as SHA-256 hex digests).
import { sql } from 'kysely';
import { first, transaction, type Db, type Provider, type Row } from './database.js';
import { EVENTS_CHANNEL } from './events.js';

export type WorkspaceRow = Row<'Workspace'>;
export type TokenRow = Row<'AgentToken'>;

export async function countWorkspaces(db: Db): Promise<number> {
  const r = await db
    .selectFrom('Workspace')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export function firstWorkspace(db: Db): Promise<WorkspaceRow | null> {
  return first(db.selectFrom('Workspace').selectAll().orderBy('createdAt', 'asc').limit(1));
}

/** The workspace and its first token, in one transaction. `createdAt` takes the wall clock, as Prisma's default did. */
export async function createWorkspaceWithToken(db: Db, w: { id: string; name: string; tokenId: string; tokenHash: string }): Promise<WorkspaceRow> {
  const now = new Date();
  return transaction(db, async (tx) => {
    // A new workspace has the approval gate on; those that existed before it keep it off (the column's default).
    const row = await tx
      .insertInto('Workspace')
      .values({ id: w.id, name: w.name, createdAt: now, approvalRequired: 1 })
      .returningAll()
      .executeTakeFirstOrThrow();
    await tx.insertInto('AgentToken').values({ id: w.tokenId, workspaceId: w.id, tokenHash: w.tokenHash, createdAt: now }).execute();
    return row;
  });
}

export function findWorkspace(db: Db, id: string): Promise<WorkspaceRow | null> {
  return first(db.selectFrom('Workspace').selectAll().where('id', '=', id));
}

/** Whether the workspace's approval gate is on (false for a workspace that does not exist). */
export async function approvalRequired(db: Db, id: string): Promise<boolean> {
  const r = await first(db.selectFrom('Workspace').select('approvalRequired').where('id', '=', id));
  return Boolean(r?.approvalRequired);
}

/** Turns the approval gate on or off; answers the workspace as it is now. */
export async function setApprovalRequired(db: Db, id: string, on: boolean): Promise<WorkspaceRow | null> {
  return first(
    db
      .updateTable('Workspace')
      .set({ approvalRequired: on ? 1 : 0 })
      .where('id', '=', id)
      .returningAll(),
  );
}

export interface NewToken {
  id: string;
  workspaceId: string;
  tokenHash: string;
  /** A named token's name, scopes (space-separated; the column's default: every scope) and expiry. */
  name?: string;
  scopes?: string;
  expiresAt?: Date | null;
  /** `agent` (the default) or `person` (a review desk session). */
  kind?: 'agent' | 'person';
}

export async function addToken(db: Db, t: NewToken): Promise<TokenRow> {
  return db
    .insertInto('AgentToken')
    .values({ ...t, createdAt: new Date() })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findToken(db: Db, tokenHash: string): Promise<TokenRow | null> {
  return first(db.selectFrom('AgentToken').selectAll().where('tokenHash', '=', tokenHash));
}

/** Records a token's last use (the caller decides how rarely), and a person session's renewed expiry. */
export async function touchToken(db: Db, id: string, at: Date, expiresAt?: Date): Promise<void> {
  await db
    .updateTable('AgentToken')
    .set(expiresAt ? { lastUsedAt: at, expiresAt } : { lastUsedAt: at })
    .where('id', '=', id)
    .execute();
}

/** Sets when a token stops working (a rotation's end of overlap). */
export async function setTokenExpiry(db: Db, id: string, expiresAt: Date): Promise<void> {
  await db.updateTable('AgentToken').set({ expiresAt }).where('id', '=', id).execute();
}

/** The payload prefix, on the events channel, of "this token ended early: forget it" (events/hub.ts). */
export const TOKEN_CHANGE_PREFIX = 'token:';

/**
 * Tells every instance on the same PostgreSQL database that a token ended early (revoked, rotated,
 * signed out), so that none trusts its cached answer for it. Nothing to tell on SQLite (one process).
 */
export async function announceTokenChange(db: Db, provider: Provider, tokenId: string): Promise<void> {
  if (provider !== 'postgresql') return;
  await sql`SELECT pg_notify(${sql.lit(EVENTS_CHANNEL)}, ${TOKEN_CHANGE_PREFIX + tokenId})`.execute(db);
}

/** A token of the workspace, by id. */
export function tokenById(db: Db, workspaceId: string, id: string): Promise<TokenRow | null> {
  return first(db.selectFrom('AgentToken').selectAll().where('workspaceId', '=', workspaceId).where('id', '=', id));
}

/** Revokes the token (the first revocation's time stays); answers the row as it is now, or null when the workspace has no such token. */
export async function revokeToken(db: Db, workspaceId: string, id: string, at: Date): Promise<TokenRow | null> {
  await db
    .updateTable('AgentToken')
    .set({ revokedAt: at })
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', id)
    .where('revokedAt', 'is', null)
    .execute();
  return tokenById(db, workspaceId, id);
}
