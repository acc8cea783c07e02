// The read-back's paging (server/platforms/readback.ts): page after page until the part, a post
// older than the attempt, or the last page; never more than READBACK_MAX_PAGES.
import { describe, expect, it } from 'vitest';
import { findInRecent, READBACK_MAX_PAGES, READBACK_SKEW_MS } from '../../server/platforms/readback.js';

interface Post {
  id: number;
  at: number;
}

const since = new Date('2026-11-28T02:00:00Z');
/** `n` posts, newest first, one a minute from `newest`. */
const timeline = (n: number, newest: number): Post[] => Array.from({ length: n }, (_, i) => ({ id: i, at: newest - i * 60_000 }));

function reader(posts: Post[], size = 10) {
  const pages: Array<string | null> = [];
  const page = (cursor: string | null) => {
    pages.push(cursor);
    const from = cursor ? Number(cursor) : 0;
    return Promise.resolve({ items: posts.slice(from, from + size), next: from + size < posts.length ? String(from + size) : null });
  };
  return { pages, page };
}

describe('findInRecent', () => {
  it('pages on until the post, past the first page', async () => {
    const r = reader(timeline(100, since.getTime() + 100 * 60_000));
    const found = await findInRecent({ since, page: r.page, postedAt: (p) => new Date(p.at), matches: (p) => p.id === 35 });
    expect(found?.id).toBe(35);
    expect(r.pages).toEqual([null, '10', '20', '30']);
  });

  it('stops at the first page that reaches a post older than the attempt (less the skew allowed)', async () => {
    // Posts from 25 minutes after the attempt back: minute 0..25 are newer, the rest older than the skew.
    const r = reader(timeline(100, since.getTime() + 25 * 60_000));
    const found = await findInRecent({ since, page: r.page, postedAt: (p) => new Date(p.at), matches: () => false });
    expect(found).toBeNull();
    // The first post older than the attempt less the skew (5 minutes) is id 31, on the 4th page.
    expect(READBACK_SKEW_MS).toBe(5 * 60_000);
    expect(r.pages).toEqual([null, '10', '20', '30']);
  });

  it('reads at most READBACK_MAX_PAGES pages, and ends at the last page', async () => {
    const many = reader(timeline(1000, since.getTime() + 1000 * 60_000));
    expect(await findInRecent({ since, page: many.page, postedAt: () => null, matches: () => false })).toBeNull();
    expect(many.pages).toHaveLength(READBACK_MAX_PAGES);
    const few = reader(timeline(15, since.getTime() + 1000 * 60_000));
    expect(await findInRecent({ since, page: few.page, postedAt: (p) => new Date(p.at), matches: () => false })).toBeNull();
    expect(few.pages).toEqual([null, '10']);
  });
});
