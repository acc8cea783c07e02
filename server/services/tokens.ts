// Workspaces and agent tokens: creation on first launch (desktop) or by an operator (team host),
// and authentication of a presented bearer token.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { components } from '../../generated/api.js';
import { invalid, notFound, stateConflict } from '../errors.js';
import { isRepresentable } from '../lib/instants.js';
import { transaction } from '../store/database.js';
import * as store from '../store/workspaces.js';
import type { AuthResult, Caller, ServiceDeps } from './context.js';
import { recordAudit, SYSTEM } from './audit.js';

import { TOKEN_FILE } from '../../shared/token-file.js';

export { TOKEN_FILE };
/** The token `npm start` or `workspace create` writes: 64 lowercase hex, every scope. */
const TOKEN_RE = /^[0-9a-f]{64}$/;
/** The fixed prefix of a named token, so that a secret scanner recognises a leaked one. */
export const NAMED_TOKEN_PREFIX = 'cpa_';
const NAMED_TOKEN_RE = /^cpa_[0-9a-f]{64}$/;
/** The fixed prefix of a person's review desk session (services/desk.ts), told apart from an agent's token at a glance. */
export const SESSION_PREFIX = 'cps_';
const SESSION_RE = /^cps_[0-9a-f]{64}$/;
/** A person session ends after this long unused; each use (written at most once a LAST_USED_RESOLUTION_MS) pushes the end on. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** …and at the latest this long after sign-in, however much it is used. */
export const SESSION_MAX_MS = 30 * 24 * 60 * 60 * 1000;
/** The longest overlap of a rotation: the old token works at most this long beside the new one. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 60 * 60;
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 60 * 60;

/** What a token may do, each the `x-required-scope` of some operations of the description. */
export const SCOPES = ['read', 'draft', 'approve', 'publish', 'accounts', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
/** How often at most the last use of a token is written. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
export const generateToken = () => randomBytes(32).toString('hex');
/** Whether a presented bearer token has one of the shapes a token or a person session can have. */
export const wellFormedToken = (token: string) => TOKEN_RE.test(token) || NAMED_TOKEN_RE.test(token) || SESSION_RE.test(token);
/** A stored token's kind (the column holds `agent` or `person`). */
const kindOf = (r: store.TokenRow): 'agent' | 'person' => (r.kind === 'person' ? 'person' : 'agent');
/** The scopes of a stored token (space-separated in the column), unknown words dropped. */
export const scopesOf = (column: string): Scope[] => SCOPES.filter((s) => column.split(' ').includes(s));
export const tokenFilePath = (dataDir: string) => path.join(dataDir, TOKEN_FILE);

export async function createWorkspace(deps: Pick<ServiceDeps, 'db' | 'ids'>, name: string): Promise<{ workspaceId: string; token: string }> {
  const token = generateToken();
  const workspaceId = deps.ids.id('ws');
  await store.createWorkspaceWithToken(deps.db, { id: workspaceId, name, tokenId: deps.ids.id('tok'), tokenHash: hashToken(token) });
  return { workspaceId, token };
}

/** A new token for an existing workspace (in the caller's transaction when `db` is one); answers the token, shown once, and its id. */
export async function issueToken(deps: Pick<ServiceDeps, 'db' | 'ids'>, workspaceId: string): Promise<{ token: string; id: string }> {
  const token = generateToken();
  const id = deps.ids.id('tok');
  await store.addToken(deps.db, { id, workspaceId, tokenHash: hashToken(token) });
  return { token, id };
}

function writeTokenFile(file: string, token: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * Desktop first launch: creates the workspace and its token and writes the token file. When the
 * workspace exists but the token file is gone (or holds a token the database does not know), a new
 * token is issued for the first workspace and written (also when the file's token was revoked or
 * has expired, e.g. rotated). Returns the file's path and what was
 * created: `'workspace'`, `'token'`, or null when the file already held a valid token.
 */
export async function ensureDesktopToken(deps: ServiceDeps, dataDir: string): Promise<{ file: string; created: 'workspace' | 'token' | null }> {
  const file = tokenFilePath(dataDir);
  const existing = existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
  const row = existing && TOKEN_RE.test(existing) ? await store.findToken(deps.db, hashToken(existing)) : null;
  // Revoked, or expired (the end of a rotation's overlap): the file needs a token that works.
  if (row && !row.revokedAt && !(row.expiresAt && row.expiresAt.getTime() <= deps.clock.now().getTime())) {
    return { file, created: null };
  }
  const workspace = await store.firstWorkspace(deps.db);
  if (!workspace) {
    const { token, workspaceId } = await createWorkspace(deps, 'Default workspace');
    writeTokenFile(file, token);
    await recordAudit(deps.db, deps, {
      workspaceId,
      actor: SYSTEM,
      action: 'workspace.created',
      subject: { type: 'workspace', id: workspaceId },
      summary: 'Created the workspace and its default token on first launch',
    });
    return { file, created: 'workspace' };
  }
  const { token, id } = await issueToken(deps, workspace.id);
  writeTokenFile(file, token);
  await recordAudit(deps.db, deps, {
    workspaceId: workspace.id,
    actor: SYSTEM,
    action: 'token.created',
    subject: { type: 'token', id },
    summary: `Issued a new default token at start (the token file ${TOKEN_FILE} was missing or held no valid token)`,
  });
  return { file, created: 'token' };
}

/**
 * Checks a bearer token: looked up by its digest, then the digests compared in constant time; a
 * revoked or expired token is refused. Records the last use, at most once a LAST_USED_RESOLUTION_MS;
 * a person session's end moves on with it (SESSION_IDLE_MS after now, never past SESSION_MAX_MS
 * after sign-in). The caller's `actor` says whether a person or an agent is calling.
 */
export async function authenticate(deps: Pick<ServiceDeps, 'db' | 'clock'>, token: string | null): Promise<AuthResult> {
  if (!token) return { ok: false, reason: (await store.countWorkspaces(deps.db)) === 0 ? 'no_token_yet' : 'missing' };
  if (!wellFormedToken(token)) return { ok: false, reason: 'malformed' };
  const digest = hashToken(token);
  const row = await store.findToken(deps.db, digest);
  if (!row || !timingSafeEqual(Buffer.from(row.tokenHash, 'hex'), Buffer.from(digest, 'hex'))) {
    return { ok: false, reason: (await store.countWorkspaces(deps.db)) === 0 ? 'no_token_yet' : 'unknown' };
  }
  const now = deps.clock.now();
  if (row.revokedAt) return { ok: false, reason: 'revoked' };
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
  const kind = kindOf(row);
  let expiresAt = row.expiresAt;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    if (kind === 'person') expiresAt = sessionEnd(row.createdAt, now);
    await store.touchToken(deps.db, row.id, now, kind === 'person' ? expiresAt! : undefined);
  }
  const scopes = scopesOf(row.scopes);
  return { ok: true, caller: { workspaceId: row.workspaceId, tokenId: row.id, scopes, actor: { kind, id: row.id, name: row.name } }, scopes, expiresAt };
}

/** When a person session used at `now` ends: SESSION_IDLE_MS later, at most SESSION_MAX_MS after its sign-in. */
const sessionEnd = (createdAt: Date, now: Date) => new Date(Math.min(now.getTime() + SESSION_IDLE_MS, createdAt.getTime() + SESSION_MAX_MS));

type S = components['schemas'];

/**
 * Forgets a token that ended early (revoked, rotated, signed out) in this instance's token cache,
 * and on PostgreSQL tells every other instance to forget it too (services/token-cache.ts): its
 * next request, wherever it goes, asks the database.
 */
export async function forgetToken(deps: Pick<ServiceDeps, 'db' | 'provider' | 'tokenCache'>, tokenId: string): Promise<void> {
  deps.tokenCache.forget(tokenId);
  await store.announceTokenChange(deps.db, deps.provider, tokenId);
}

/** A token as the API shows it: never its secret (the service has only its digest anyway). */
export function tokenView(r: store.TokenRow): S['Token'] {
  return {
    id: r.id,
    kind: kindOf(r),
    name: r.name,
    scopes: scopesOf(r.scopes),
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt?.toISOString() ?? null,
    last_used_at: r.lastUsedAt?.toISOString() ?? null,
    revoked_at: r.revokedAt?.toISOString() ?? null,
  };
}

/** A named token of the caller's workspace with the scopes asked for; the secret is in this answer only. */
export async function createNamedToken(deps: ServiceDeps, caller: Caller, body: S['CreateTokenRequest']): Promise<S['CreatedToken']> {
  let expiresAt: Date | null = null;
  if (body.expires_at !== undefined) {
    expiresAt = new Date(body.expires_at);
    if (!isRepresentable(expiresAt.getTime())) throw invalid('body.expires_at is not a time of the years 0001–9999 in UTC.');
    const now = deps.clock.now();
    if (expiresAt.getTime() <= now.getTime()) throw invalid(`body.expires_at is not in the future (now is ${now.toISOString()}).`);
  }
  const secret = NAMED_TOKEN_PREFIX + generateToken();
  const row = await store.addToken(deps.db, {
    id: deps.ids.id('tok'),
    workspaceId: caller.workspaceId,
    tokenHash: hashToken(secret),
    name: body.name,
    scopes: SCOPES.filter((s) => body.scopes.includes(s)).join(' '),
    expiresAt,
  });
  return { token: tokenView(row), secret };
}

/** The caller's own token, as `GET /tokens` shows it (what it may do, when it expires). */
export async function currentToken(deps: ServiceDeps, caller: Caller): Promise<S['Token']> {
  const row = await store.tokenById(deps.db, caller.workspaceId, caller.tokenId);
  if (!row) throw notFound('token');
  return tokenView(row);
}

/** Revokes a token or person session of the caller's workspace: 401 from its next request on, on every instance. */
export async function revokeToken(deps: ServiceDeps, caller: Caller, id: string): Promise<S['Token']> {
  const row = await store.revokeToken(deps.db, caller.workspaceId, id, deps.clock.now());
  if (!row) throw notFound('token');
  await forgetToken(deps, row.id);
  return tokenView(row);
}

/** A person's review desk session (services/desk.ts signs one in): every scope, SESSION_IDLE_MS to live, renewed while used. */
export async function createPersonSession(
  deps: Pick<ServiceDeps, 'db' | 'ids' | 'clock'>,
  workspaceId: string,
  name: string,
): Promise<{ secret: string; row: store.TokenRow }> {
  const secret = SESSION_PREFIX + generateToken();
  const row = await store.addToken(deps.db, {
    id: deps.ids.id('tok'),
    workspaceId,
    tokenHash: hashToken(secret),
    name,
    kind: 'person',
    expiresAt: new Date(deps.clock.now().getTime() + SESSION_IDLE_MS),
  });
  return { secret, row };
}

/**
 * Rotates an agent token: a new token with the same name, scopes and expiry (its secret in this
 * answer only), while the old one keeps working for `overlapSeconds` more (never longer than it
 * would have anyway), then answers `401` (`expired`). A revoked or expired token, or a person's
 * session (which signs in again instead), is 409 state_conflict.
 */
export async function rotateToken(
  deps: ServiceDeps,
  caller: Caller,
  id: string,
  overlapSeconds = DEFAULT_ROTATION_OVERLAP_SECONDS,
): Promise<S['RotatedToken']> {
  const now = deps.clock.now();
  const { created, secret, previous } = await transaction(deps.db, async (tx) => {
    const old = await store.tokenById(tx, caller.workspaceId, id);
    if (!old) throw notFound('token');
    if (kindOf(old) === 'person') throw stateConflict(`Token ${id} is a person's review desk session: it is not rotated; the person signs in again.`);
    if (old.revokedAt) throw stateConflict(`Token ${id} was revoked at ${old.revokedAt.toISOString()}: create a new token instead.`);
    if (old.expiresAt && old.expiresAt.getTime() <= now.getTime())
      throw stateConflict(`Token ${id} expired at ${old.expiresAt.toISOString()}: create a new token instead.`);
    const secret = NAMED_TOKEN_PREFIX + generateToken();
    const created = await store.addToken(tx, {
      id: deps.ids.id('tok'),
      workspaceId: caller.workspaceId,
      tokenHash: hashToken(secret),
      name: old.name ?? undefined,
      scopes: old.scopes,
      expiresAt: old.expiresAt,
    });
    const end = new Date(Math.min(now.getTime() + overlapSeconds * 1000, old.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY));
    await store.setTokenExpiry(tx, old.id, end);
    return { created, secret, previous: { ...old, expiresAt: end } };
  });
  await forgetToken(deps, previous.id);
  return { token: tokenView(created), secret, previous: tokenView(previous) };
}
