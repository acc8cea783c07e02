// The desk's session: a person's own session (a `cps_` token the sign-in link's exchange made,
// never an agent's token), kept in this tab's sessionStorage only (never in a URL, never in
// localStorage, never in a cookie), and the typed client built on it. A sign-in link carries a
// one-time code in the URL fragment (which browsers never send to the server), that the page
// exchanges once for the session (POST /api/desk/sign-in) and removes from the address bar. The
// session ends 12 hours after its last use, or when revoked ("Sign out"): then every call is 401,
// and the page asks the person to sign in again.
import { createApiClient, type ApiClient } from '../../clients/typescript/src/browser.js';

const SESSION_KEY = 'cpa.desk.session';
/** A person session's secret: `cps_` and 64 lowercase hex. */
const SESSION_PATTERN = /^cps_[0-9a-f]{64}$/;

export interface DeskSession {
  token: string;
  /** The session's id (`tok_…`), to revoke it at sign-out. */
  id: string;
  /** The person's name. */
  name: string;
}

export function storedSession(): DeskSession | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Partial<DeskSession> | null;
    return s && typeof s.token === 'string' && SESSION_PATTERN.test(s.token) && typeof s.id === 'string' && typeof s.name === 'string'
      ? { token: s.token, id: s.id, name: s.name }
      : null;
  } catch {
    return null;
  }
}

/** The stored session's token (for the upload, which goes by XMLHttpRequest for its progress). */
export const storedToken = (): string | null => storedSession()?.token ?? null;

export function keepSession(s: DeskSession): void {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
}

export function forgetSession(): void {
  sessionStorage.removeItem(SESSION_KEY);
}

/** Signs out: revokes the session on the service (so that a copy of it stops working too), then forgets it here. */
export async function signOut(s: DeskSession): Promise<void> {
  try {
    await clientFor(s.token).DELETE('/api/agent/v1/tokens/{id}', { params: { path: { id: s.id } } });
  } catch {
    // The service did not answer: the tab forgets the session anyway; it ends unused in 12 hours.
  }
  forgetSession();
}

/** The client of a session; `onEnded` is called when the service answers 401 (the session expired or was revoked). */
export function clientFor(token: string, onEnded?: () => void): ApiClient {
  const client = createApiClient({ baseUrl: location.origin, token, maxRetries: 2 });
  if (onEnded)
    client.use({
      onResponse({ response }) {
        if (response.status === 401) onEnded();
        return undefined;
      },
    });
  return client;
}

/** The one-time code of a sign-in link (`#/sign-in/<code>`), or null. */
export function signInCode(hash: string): string | null {
  return /^#\/sign-in\/([A-Za-z0-9_-]{20,100})$/.exec(hash)?.[1] ?? null;
}

/** Exchanges a sign-in link's code for a session of the person it names (once: a second try is refused). */
export async function exchangeCode(code: string): Promise<DeskSession | { error: string }> {
  const client = createApiClient({ baseUrl: location.origin, maxRetries: 0 });
  const { data, error, response } = await client.POST('/api/desk/sign-in', { body: { code } });
  if (data) return { token: data.token, id: data.id, name: data.name };
  const message = (error as { error?: { message?: string } } | undefined)?.error?.message;
  return { error: message ?? `The sign-in link was refused (HTTP ${response.status}).` };
}
