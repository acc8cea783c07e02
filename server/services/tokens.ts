// Workspaces and agent tokens: creation on first launch (desktop) or by an operator (team host),
// and authentication of a presented bearer token.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { components } from '../../generated/api.js';
import { invalid, notFound } from '../errors.js';
import { isRepresentable } from '../lib/instants.js';
import * as store from '../store/workspaces.js';
import type { Caller, ServiceDeps } from './context.js';

import { TOKEN_FILE } from '../../shared/token-file.js';

export { TOKEN_FILE };
/** The token `npm start` or `workspace create` writes: 64 lowercase hex, every scope. */
const TOKEN_RE = /^[0-9a-f]{64}$/;
/** The fixed prefix of a named token, so that a secret scanner recognises a leaked one. */
export const NAMED_TOKEN_PREFIX = 'cpa_';
const NAMED_TOKEN_RE = /^cpa_[0-9a-f]{64}$/;

/** What a token may do, each the `x-required-scope` of some operations of the description. */
export const SCOPES = ['read', 'draft', 'approve', 'publish', 'accounts', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
/** How often at most the last use of a token is written. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
export const generateToken = () => randomBytes(32).toString('hex');
/** Whether a presented bearer token has one of the two shapes a token can have. */
export const wellFormedToken = (token: string) => TOKEN_RE.test(token) || NAMED_TOKEN_RE.test(token);
/** The scopes of a stored token (space-separated in the column), unknown words dropped. */
export const scopesOf = (column: string): Scope[] => SCOPES.filter((s) => column.split(' ').includes(s));
export const tokenFilePath = (dataDir: string) => path.join(dataDir, TOKEN_FILE);

export async function createWorkspace(deps: Pick<ServiceDeps, 'db' | 'ids'>, name: string): Promise<{ workspaceId: string; token: string }> {
  const token = generateToken();
  const workspaceId = deps.ids.id('ws');
  await store.createWorkspaceWithToken(deps.db, { id: workspaceId, name, tokenId: deps.ids.id('tok'), tokenHash: hashToken(token) });
  return { workspaceId, token };
}

/** A new token for an existing workspace (in the caller's transaction when `db` is one); answers the token, shown once. */
export async function issueToken(deps: Pick<ServiceDeps, 'db' | 'ids'>, workspaceId: string): Promise<string> {
  const token = generateToken();
  await store.addToken(deps.db, { id: deps.ids.id('tok'), workspaceId, tokenHash: hashToken(token) });
  return token;
}

function writeTokenFile(file: string, token: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * Desktop first launch: creates the workspace and its token and writes the token file. When the
 * workspace exists but the token file is gone (or holds a token the database does not know), a new
 * token is issued for the first workspace and written. Returns the file's path and what was
 * created: `'workspace'`, `'token'`, or null when the file already held a valid token.
 */
export async function ensureDesktopToken(deps: ServiceDeps, dataDir: string): Promise<{ file: string; created: 'workspace' | 'token' | null }> {
  const file = tokenFilePath(dataDir);
  const existing = existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
  const row = existing && TOKEN_RE.test(existing) ? await store.findToken(deps.db, hashToken(existing)) : null;
  if (row && !row.revokedAt) {
    return { file, created: null };
  }
  const workspace = await store.firstWorkspace(deps.db);
  if (!workspace) {
    const { token } = await createWorkspace(deps, 'Default workspace');
    writeTokenFile(file, token);
    return { file, created: 'workspace' };
  }
  const token = await issueToken(deps, workspace.id);
  writeTokenFile(file, token);
  return { file, created: 'token' };
}

export type AuthResult =
  | { ok: true; caller: Caller; scopes: Scope[]; expiresAt: Date | null }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'no_token_yet' | 'revoked' | 'expired' };

/**
 * Checks a bearer token: looked up by its digest, then the digests compared in constant time; a
 * revoked or expired token is refused. Records the last use, at most once a LAST_USED_RESOLUTION_MS.
 */
export async function authenticate(deps: ServiceDeps, token: string | null): Promise<AuthResult> {
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
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) await store.touchToken(deps.db, row.id, now);
  return { ok: true, caller: { workspaceId: row.workspaceId, tokenId: row.id }, scopes: scopesOf(row.scopes), expiresAt: row.expiresAt };
}

type S = components['schemas'];

/** A success of `authenticate`, as the bearer check's cache (http/auth.ts) keeps it until `until`. */
export interface CachedAuth {
  result: Extract<AuthResult, { ok: true }>;
  until: number;
}
/** Every token cache of this process, so that a revocation clears the token from each at once. */
export const tokenCaches = new Set<Map<string, CachedAuth>>();

/**
 * Forgets a token in every cache of this process (after it was revoked): its next request asks
 * the database. Another instance on the same database trusts its cached answer for at most
 * TOKEN_CACHE_MS (http/auth.ts).
 */
export function forgetToken(tokenId: string): void {
  for (const known of tokenCaches) {
    for (const [key, entry] of known) if (entry.result.caller.tokenId === tokenId) known.delete(key);
  }
}

/** A token as the API shows it: never its secret (the service has only its digest anyway). */
export function tokenView(r: store.TokenRow): S['Token'] {
  return {
    id: r.id,
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

/** Revokes a token of the caller's workspace: 401 from its next request on (this instance forgets it at once). */
export async function revokeToken(deps: ServiceDeps, caller: Caller, id: string): Promise<S['Token']> {
  const row = await store.revokeToken(deps.db, caller.workspaceId, id, deps.clock.now());
  if (!row) throw notFound('token');
  forgetToken(row.id);
  return tokenView(row);
}
