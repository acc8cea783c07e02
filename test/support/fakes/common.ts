// What the fakes of X, LinkedIn and Threads share: reading a request's parameters, answering a
// 429 with the platform's rate-limit headers, and dropping the connection after the work is done.
import type http from 'node:http';
import type { OAuthFake } from '../oauth-fakes.js';
import { bearerValid } from '../oauth-server.js';

/** A JSON or form body's fields, with the query string's (the Graph API takes either). */
export function paramsOf(req: http.IncomingMessage, body: Buffer): Record<string, string> {
  const url = new URL(req.url ?? '/', 'https://fake');
  const out: Record<string, string> = Object.fromEntries(url.searchParams);
  if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
    Object.assign(out, Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
  return out;
}

export function jsonOf<T>(body: Buffer): T | null {
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch {
    return null;
  }
}

/** What every one of these fakes can be told to do to its post call. */
export interface PostFaults {
  /** Answer the next N post calls 429 (nothing made), with the reset `resetInSeconds` ahead. */
  rateLimitNext: number;
  resetInSeconds: number;
  /** A post whose text contains this is made, then the connection is dropped before the answer (once). */
  dropAfterPostText: string | null;
  /** Answer the next N post calls 503 without making anything. */
  failNextPosts: number;
  /** Every authenticated call answers 401 (the access token expired or was revoked). */
  expired: boolean;
  /**
   * When a connection is dropped after a post (`dropAfterPostText`), the account then makes this
   * many other posts (from another app) before the service reads back: the part is no longer on
   * the first page of the account's posts (once).
   */
  postsAfterDrop: number;
}

export const noFaults = (): PostFaults => ({
  rateLimitNext: 0,
  resetInSeconds: 60,
  dropAfterPostText: null,
  failNextPosts: 0,
  expired: false,
  postsAfterDrop: 0,
});

/**
 * When `text` contains `state.dropAfterPostText`: drops the connection without an answer (the work
 * done) and clears the mode; `meanwhile(n)` then makes the account's `postsAfterDrop` other posts.
 */
export function dropAfter(state: PostFaults, text: string, req: http.IncomingMessage, meanwhile?: (n: number) => void): boolean {
  if (!state.dropAfterPostText || !text.includes(state.dropAfterPostText)) return false;
  state.dropAfterPostText = null;
  const others = state.postsAfterDrop;
  state.postsAfterDrop = 0;
  req.socket.destroy();
  if (others > 0) meanwhile?.(others);
  return true;
}

/**
 * Whether a request to an API fake is authenticated: it carries the fake's own access token (the
 * pasted developer-app token, `token`), or, when the fake shares the token store of the
 * platform's authorization-server fake (`auth`), an access token that fake issued by signing in
 * and that has not expired (a refreshed-away or expired one is refused, as the platform does).
 * `expired` refuses both.
 */
export function authorizedBy(state: PostFaults & { token: string }, auth: OAuthFake | undefined) {
  return (req: http.IncomingMessage): boolean =>
    !state.expired && (req.headers.authorization === `Bearer ${state.token}` || (auth !== undefined && bearerValid(auth.oauth, req)));
}

/** What an API fake is started with besides its state. */
export interface ApiFakeOptions {
  /**
   * The platform's authorization-server fake (oauth-fakes.ts): the API fake then accepts the
   * access tokens it issues, and is the account of the user who signs in there (its id and name).
   */
  auth?: OAuthFake;
}

/** A page of `items` (newest first) from `offset`, and the offset of the next page, or null when this is the last. */
export function pageOf<T>(items: T[], offset: number, size: number): { page: T[]; next: number | null } {
  const page = items.slice(offset, offset + size);
  return { page, next: offset + size < items.length ? offset + size : null };
}
