// The bearer check's memory of the tokens that authenticated, one per instance
// (`ServiceDeps.tokenCache`), so that a read costs one query instead of two (BENCHMARKS.md).
// Whatever ends a token early (a revocation, a rotation's new end, a desk sign-out) forgets it
// here at once, and on PostgreSQL tells every other instance on the same database through the
// events channel (store/workspaces.ts `announceTokenChange`, events/hub.ts): their next request
// with it asks the database. An instance that cannot hear those announcements (its LISTEN
// connection is down) trusts no cached answer until it hears again, and then starts afresh.

/** How long a token that authenticated is trusted without asking the database again. */
export const TOKEN_CACHE_MS = 60_000;
const TOKEN_CACHE_MAX = 10_000;

/** What is remembered: a success of the bearer check (services/context.ts `Authenticated`); only its token id and expiry matter here. */
interface Remembered {
  caller: { tokenId: string };
  expiresAt: Date | null;
}

export class TokenCache<Authenticated extends Remembered = Remembered> {
  private readonly known = new Map<string, { result: Authenticated; until: number }>();
  /** Counts forgets and clears: an answer read from the database before one is not remembered after it. */
  private forgets = 0;

  /** `trusted`: whether this instance would hear of a token ended elsewhere (always on SQLite, one process). */
  constructor(private readonly trusted: () => boolean = () => true) {}

  /** The remembered success for this token digest, or null (unknown, stale, or not trusted now). */
  get(digest: string, now: number): Authenticated | null {
    if (!this.trusted()) return null;
    const hit = this.known.get(digest);
    return hit && hit.until > now ? hit.result : null;
  }

  /** A mark to take before asking the database, for `set`. */
  get mark(): number {
    return this.forgets;
  }

  /**
   * Remembers a success for TOKEN_CACHE_MS, never beyond the token's expiry; not when a token was
   * forgotten since `mark` was taken (the answer may predate a revocation announced meanwhile).
   */
  set(digest: string, result: Authenticated, now: number, mark: number = this.forgets): void {
    if (mark !== this.forgets) return;
    if (this.known.size >= TOKEN_CACHE_MAX) this.known.clear();
    const until = Math.min(now + TOKEN_CACHE_MS, result.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY);
    this.known.set(digest, { result, until });
  }

  /** Forgets one token (by id): its next request asks the database. */
  forget(tokenId: string): void {
    this.forgets++;
    for (const [key, entry] of this.known) if (entry.result.caller.tokenId === tokenId) this.known.delete(key);
  }

  /** Forgets every token (after a time this instance could not hear announcements). */
  clear(): void {
    this.forgets++;
    this.known.clear();
  }
}
