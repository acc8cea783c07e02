// Sign-in links for the review desk (docs/desk.md, "Signing in"). A link carries a one-time code
// in its URL fragment and signs one named person in: its exchange makes a session of that
// person's own (services/tokens.ts `createPersonSession`, a `cps_` token), never an agent's token.
// The service keeps only the code's SHA-256 (the setting's key) beside the workspace and the
// person's name, so that neither the database nor a log line signs anybody in: only the code
// does, once, within LINK_TTL_MS.
import { createHash, randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { unauthorized } from '../errors.js';
import { deleteSetting, insertSetting, settingsWithPrefix, takeSetting } from '../store/settings.js';
import type { components } from '../../generated/api.js';
import type { Caller, ServiceDeps } from './context.js';
import { transaction } from '../store/database.js';
import { findToken } from '../store/workspaces.js';
import { recordAudit } from './audit.js';
import { createPersonSession, hashToken } from './tokens.js';

export const LINK_TTL_MS = 10 * 60 * 1000;
const PREFIX = 'desk_sign_in:';
/** The name of a person signed in by a link that named nobody, made by an agent's token. */
export const DEFAULT_PERSON_NAME = 'desk user';

interface Pending {
  workspace_id: string;
  name: string;
  expires_at: string;
}

const idOf = (code: string) => PREFIX + createHash('sha256').update(`content-pipeline desk id\0${code}`).digest('hex');
/** The mark a spent code leaves (under the same prefix, so the hourly sweep removes it when it expires). */
const usedIdOf = (code: string) => `${PREFIX}used:${idOf(code).slice(PREFIX.length)}`;
/** How long a spent code is remembered as spent (then it is refused as unknown). */
const USED_KEPT_MS = 24 * 60 * 60 * 1000;

export const REFUSED =
  'This sign-in link is not valid: it was used already, expired (links last 10 minutes), or never existed. Run `npx cpa desk` for a new one.';
export const USED =
  "This sign-in link was used already: a link signs in once. If that was not you, revoke the session it made (`npx cpa tokens list` shows people's sessions, `npx cpa tokens revoke <id>` ends one), then run `npx cpa desk` for a new link.";

/**
 * Makes a one-time sign-in link for the person `name` in the caller's workspace; without a name,
 * the caller's own when a person makes it, else DEFAULT_PERSON_NAME.
 */
export async function createSignInLink(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  caller: Pick<Caller, 'workspaceId' | 'actor'>,
  name?: string,
): Promise<components['schemas']['DeskSignInLink']> {
  const person = name?.trim() || (caller.actor?.kind === 'person' ? caller.actor.name : null) || DEFAULT_PERSON_NAME;
  const code = randomBytes(16).toString('base64url'); // 22 characters, 128 bits
  const expiresAt = new Date(deps.clock.now().getTime() + LINK_TTL_MS).toISOString();
  const pending: Pending = { workspace_id: caller.workspaceId, name: person, expires_at: expiresAt };
  await insertSetting(deps.db, idOf(code), JSON.stringify(pending));
  return { path: `/#/sign-in/${code}`, code, expires_at: expiresAt };
}

/** The operating system's user name (what `npm start` and `npx cpa desk` sign in), or DEFAULT_PERSON_NAME. */
export function osUserName(): string {
  try {
    return userInfo().username.trim().slice(0, 100) || DEFAULT_PERSON_NAME;
  } catch {
    return DEFAULT_PERSON_NAME;
  }
}

/** `npm start`'s link on a desktop instance: for the operating system's user, in the workspace of the token file's token (null when the token is unknown). */
export async function desktopSignInLink(deps: Pick<ServiceDeps, 'db' | 'clock'>, token: string): Promise<string | null> {
  const row = await findToken(deps.db, hashToken(token));
  return row ? (await createSignInLink(deps, { workspaceId: row.workspaceId }, osUserName())).path : null;
}

/** Spends a link's code: signs its person in (a new session, its secret answered once), or throws 401 (unknown, spent or expired). */
export async function exchangeSignInCode(deps: Pick<ServiceDeps, 'db' | 'clock' | 'ids'>, code: string): Promise<components['schemas']['DeskSession']> {
  const value = await takeSetting(deps.db, idOf(code));
  if (value === null) throw unauthorized((await settingsWithPrefix(deps.db, usedIdOf(code))).length ? USED : REFUSED);
  const pending = JSON.parse(value) as Partial<Pending>;
  // A link made before sign-in links named a person (it sealed a token) has no workspace: refused like an expired one.
  if (!pending.workspace_id || !pending.name || !(Date.parse(pending.expires_at ?? '') > deps.clock.now().getTime())) throw unauthorized(REFUSED);
  const { workspace_id: workspaceId, name } = pending;
  // The session, the spent code's mark and the record commit together: whoever signed in is in the record.
  const { secret, row } = await transaction(deps.db, async (tx) => {
    await insertSetting(tx, usedIdOf(code), JSON.stringify({ expires_at: new Date(deps.clock.now().getTime() + USED_KEPT_MS).toISOString() }));
    const made = await createPersonSession({ ...deps, db: tx }, workspaceId, name);
    await recordAudit(tx, deps, {
      workspaceId,
      actor: { kind: 'person', id: made.row.id, name },
      action: 'desk.signed_in',
      subject: { type: 'token', id: made.row.id },
      summary: `Signed in to the review desk as ${JSON.stringify(name)} (a session until ${made.row.expiresAt!.toISOString()}, renewed while used)`,
    });
    return made;
  });
  return { token: secret, id: row.id, name, expires_at: row.expiresAt!.toISOString() };
}

/** Removes the links that expired unused (the hourly sweep); answers how many. */
export async function sweepExpiredSignInLinks(deps: Pick<ServiceDeps, 'db' | 'clock'>): Promise<number> {
  const now = deps.clock.now().getTime();
  let removed = 0;
  for (const { key, value } of await settingsWithPrefix(deps.db, PREFIX)) {
    let expires = 0;
    try {
      expires = Date.parse((JSON.parse(value) as Pending).expires_at);
    } catch {
      // unreadable: remove it
    }
    if (!(expires > now)) {
      await deleteSetting(deps.db, key);
      removed++;
    }
  }
  return removed;
}
