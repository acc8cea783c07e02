// Exactly once on a platform that takes no idempotency key (X, LinkedIn, Threads): before posting a
// part whose earlier attempt ended without an answer, and after an attempt that ends so, read the
// account's recent posts back and adopt the one that is this part (same text, same parent)
// instead of posting it a second time. The read pages back through the account's posts (newest
// first, with each platform's own cursor) until it reaches posts older than the first attempt
// began, so that an account that posted many others meanwhile still has its part found; at most
// READBACK_MAX_PAGES pages.
import { AdapterError, type Published } from '../adapters/types.js';

/** The most pages one read-back reads (each of the platform's page size, 50 here: 500 posts). */
export const READBACK_MAX_PAGES = 10;

/** Posts read per page by a read-back. */
export const READBACK_PAGE_SIZE = 50;

/** How far the platform's clock may be behind ours: posts this much older than the attempt are still read. */
export const READBACK_SKEW_MS = 5 * 60_000;

/**
 * An outcome that leaves unknown whether the platform made the post: the connection dropped or
 * timed out after the request may have been sent, or the platform answered 5xx. A 429 or any other
 * 4xx is a refusal: nothing was made.
 */
export const unknownOutcome = (err: unknown): boolean =>
  err instanceof AdapterError && err.kind === 'unavailable' && (err.status === null || err.status >= 500);

/** One page of an account's posts, newest first, and the cursor of the next (older) one, or null at the end. */
export interface ReadbackPage<T> {
  items: T[];
  next: string | null;
}

/**
 * The first of an account's posts that `matches`, reading page after page (newest first) from
 * `page(null)`, until a page reaches a post older than `since` (less READBACK_SKEW_MS): the part,
 * made after `since`, cannot be further back. `postedAt` is the time the platform orders the posts
 * by (null: unknown, never stops the read). Null when none matches within READBACK_MAX_PAGES pages.
 */
export async function findInRecent<T>(q: {
  since: Date;
  page: (cursor: string | null) => Promise<ReadbackPage<T>>;
  postedAt: (item: T) => Date | null;
  matches: (item: T) => boolean;
}): Promise<T | null> {
  const floor = q.since.getTime() - READBACK_SKEW_MS;
  let cursor: string | null = null;
  for (let n = 0; n < READBACK_MAX_PAGES; n++) {
    const { items, next } = await q.page(cursor);
    const found = items.find(q.matches);
    if (found) return found;
    const older = items.some((item) => (q.postedAt(item)?.getTime() ?? Infinity) < floor);
    if (older || !next || !items.length) return null;
    cursor = next;
  }
  return null;
}

export async function postOnce(q: {
  /** An earlier attempt may have made the post (PublishPart.mayExist). */
  mayExist: boolean;
  /** When the earliest attempt that may have made it began (PublishPart.attemptsSince); absent: `now`. */
  since: Date | undefined;
  /** The start of this attempt (the adapter's `ctx.now`). */
  now: Date;
  /** The part among the account's posts made since the instant given, or null. */
  find: (since: Date) => Promise<Published | null>;
  post: () => Promise<Published>;
}): Promise<Published> {
  if (q.mayExist) {
    const found = await q.find(q.since ?? q.now);
    if (found) return found;
  }
  try {
    return await q.post();
  } catch (err) {
    if (!unknownOutcome(err)) throw err;
    // Read back at once (this attempt's post is no older than its start); when the read fails
    // too, the run retries and reads back before posting.
    const found = await q.find(q.now).catch(() => null);
    if (found) return found;
    throw err;
  }
}
