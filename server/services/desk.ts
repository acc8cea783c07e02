// Sign-in links for the review desk (docs/desk.md, "Signing in"). A link carries a one-time code
// in its URL fragment; the service keeps only the code's SHA-256 (the setting's key) and the agent
// token encrypted with AES-256-GCM under a key derived from the code, so that neither the database
// nor a log line gives the token back: only the code does, once, within LINK_TTL_MS.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { unauthorized } from '../errors.js';
import { deleteSetting, insertSetting, settingsWithPrefix, takeSetting } from '../store/settings.js';
import type { ServiceDeps } from './context.js';

export const LINK_TTL_MS = 10 * 60 * 1000;
const PREFIX = 'desk_sign_in:';

interface Sealed {
  iv: string;
  tag: string;
  data: string;
  expires_at: string;
}

const keyOf = (code: string) => createHash('sha256').update(`content-pipeline desk key\0${code}`).digest();
const idOf = (code: string) => PREFIX + createHash('sha256').update(`content-pipeline desk id\0${code}`).digest('hex');
/** The mark a spent code leaves (under the same prefix, so the hourly sweep removes it when it expires). */
const usedIdOf = (code: string) => `${PREFIX}used:${idOf(code).slice(PREFIX.length)}`;
/** How long a spent code is remembered as spent (then it is refused as unknown). */
const USED_KEPT_MS = 24 * 60 * 60 * 1000;

export const REFUSED =
  'This sign-in link is not valid: it was used already, expired (links last 10 minutes), or never existed. Run `npx cpa desk` for a new one.';
export const USED =
  'This sign-in link was used already: a link signs in once. If that was not you, run `npx cpa desk` for a new one and tell whoever holds the token.';

/** Makes a one-time sign-in link for `token` (the caller's own agent token). */
export async function createSignInLink(deps: Pick<ServiceDeps, 'db' | 'clock'>, token: string): Promise<{ path: string; code: string; expires_at: string }> {
  const code = randomBytes(16).toString('base64url'); // 22 characters, 128 bits
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(code), iv);
  const data = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  const expiresAt = new Date(deps.clock.now().getTime() + LINK_TTL_MS).toISOString();
  const sealed: Sealed = { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64'), expires_at: expiresAt };
  await insertSetting(deps.db, idOf(code), JSON.stringify(sealed));
  return { path: `/#/sign-in/${code}`, code, expires_at: expiresAt };
}

/** Spends a link's code: answers the token it was made for, or throws 401 (unknown, spent or expired). */
export async function exchangeSignInCode(deps: Pick<ServiceDeps, 'db' | 'clock'>, code: string): Promise<{ token: string }> {
  const value = await takeSetting(deps.db, idOf(code));
  if (value === null) throw unauthorized((await settingsWithPrefix(deps.db, usedIdOf(code))).length ? USED : REFUSED);
  const sealed = JSON.parse(value) as Sealed;
  if (Date.parse(sealed.expires_at) <= deps.clock.now().getTime()) throw unauthorized(REFUSED);
  const usedUntil = new Date(deps.clock.now().getTime() + USED_KEPT_MS).toISOString();
  await insertSetting(deps.db, usedIdOf(code), JSON.stringify({ expires_at: usedUntil }));
  const decipher = createDecipheriv('aes-256-gcm', keyOf(code), Buffer.from(sealed.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  const token = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  return { token };
}

/** Removes the links that expired unused (the hourly sweep); answers how many. */
export async function sweepExpiredSignInLinks(deps: Pick<ServiceDeps, 'db' | 'clock'>): Promise<number> {
  const now = deps.clock.now().getTime();
  let removed = 0;
  for (const { key, value } of await settingsWithPrefix(deps.db, PREFIX)) {
    let expires = 0;
    try {
      expires = Date.parse((JSON.parse(value) as Sealed).expires_at);
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
