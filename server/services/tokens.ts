// Workspaces and agent tokens: creation on first launch (desktop) or by an operator (team host),
// and authentication of a presented bearer token.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as store from '../store/workspaces.js';
import type { Caller, ServiceDeps } from './context.js';

import { TOKEN_FILE } from '../../shared/token-file.js';

export { TOKEN_FILE };
const TOKEN_RE = /^[0-9a-f]{64}$/;

export const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
export const generateToken = () => randomBytes(32).toString('hex');
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
  if (existing && TOKEN_RE.test(existing) && (await store.findToken(deps.db, hashToken(existing)))) {
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

export type AuthResult = { ok: true; caller: Caller } | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'no_token_yet' };

/** Checks a bearer token: looked up by its digest, then the digests compared in constant time. */
export async function authenticate(deps: ServiceDeps, token: string | null): Promise<AuthResult> {
  if (!token) return { ok: false, reason: (await store.countWorkspaces(deps.db)) === 0 ? 'no_token_yet' : 'missing' };
  if (!TOKEN_RE.test(token)) return { ok: false, reason: 'malformed' };
  const digest = hashToken(token);
  const row = await store.findToken(deps.db, digest);
  if (!row || !timingSafeEqual(Buffer.from(row.tokenHash, 'hex'), Buffer.from(digest, 'hex'))) {
    return { ok: false, reason: (await store.countWorkspaces(deps.db)) === 0 ? 'no_token_yet' : 'unknown' };
  }
  return { ok: true, caller: { workspaceId: row.workspaceId, tokenId: row.id } };
}
