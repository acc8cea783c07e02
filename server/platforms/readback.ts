// Exactly once on a platform that takes no idempotency key (X, LinkedIn, Threads): before posting a
// part whose earlier attempt ended without an answer, and after an attempt that ends so, read the
// account's recent posts back and adopt the one that is this part (same text, same parent)
// instead of posting it a second time.
import { AdapterError, type Published } from '../adapters/types.js';

/**
 * An outcome that leaves unknown whether the platform made the post: the connection dropped or
 * timed out after the request may have been sent, or the platform answered 5xx. A 429 or any other
 * 4xx is a refusal: nothing was made.
 */
export const unknownOutcome = (err: unknown): boolean =>
  err instanceof AdapterError && err.kind === 'unavailable' && (err.status === null || err.status >= 500);

export async function postOnce(q: {
  /** An earlier attempt may have made the post (PublishPart.mayExist). */
  mayExist: boolean;
  /** The part among the account's recent posts, or null. */
  find: () => Promise<Published | null>;
  post: () => Promise<Published>;
}): Promise<Published> {
  if (q.mayExist) {
    const found = await q.find();
    if (found) return found;
  }
  try {
    return await q.post();
  } catch (err) {
    if (!unknownOutcome(err)) throw err;
    // Read back at once; when the read fails too, the run retries and reads back before posting.
    const found = await q.find().catch(() => null);
    if (found) return found;
    throw err;
  }
}
