// The desk's session: the agent token, kept in this tab's sessionStorage only (never in a URL,
// never in localStorage, never in a cookie), and the typed client built on it. A sign-in link
// carries a one-time code in the URL fragment (which browsers never send to the server), that
// the page exchanges once for the token (POST /api/desk/sign-in) and removes from the address bar.
import { createApiClient, type ApiClient } from '../../clients/typescript/src/browser.js';

const TOKEN_KEY = 'cpa.desk.token';
/** The first-launch token (64 lowercase hex) or a named one (`cpa_` and 64 lowercase hex). */
const TOKEN_PATTERN = /^(cpa_)?[0-9a-f]{64}$/;

export const isToken = (s: string): boolean => TOKEN_PATTERN.test(s);

export function storedToken(): string | null {
  const t = sessionStorage.getItem(TOKEN_KEY);
  return t && isToken(t) ? t : null;
}

export function keepToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

export function clientFor(token: string): ApiClient {
  return createApiClient({ baseUrl: location.origin, token, maxRetries: 2 });
}

/** The one-time code of a sign-in link (`#/sign-in/<code>`), or null. */
export function signInCode(hash: string): string | null {
  return /^#\/sign-in\/([A-Za-z0-9_-]{20,100})$/.exec(hash)?.[1] ?? null;
}

/** Exchanges a sign-in link's code for the agent token (once: a second try is refused). */
export async function exchangeCode(code: string): Promise<{ token: string } | { error: string }> {
  const client = createApiClient({ baseUrl: location.origin, maxRetries: 0 });
  const { data, error, response } = await client.POST('/api/desk/sign-in', { body: { code } });
  if (data) return { token: data.token };
  const message = (error as { error?: { message?: string } } | undefined)?.error?.message;
  return { error: message ?? `The sign-in link was refused (HTTP ${response.status}).` };
}
