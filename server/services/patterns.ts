// Patterns: what recurs across a pipeline's best-performing posts. Posts are ranked by an
// engagement score (likes + 2×reposts + replies + 2×quotes; newest first among equals, so a feed
// without metrics falls back to its latest posts); the best quarter (at least 3, at most 50)
// is examined. A trait is a pattern when at least max(2, 30%) of those posts share it:
// a format, a way of opening (hook kind), a hashtag, a length band, or a linked domain.
import { hookKind, lengthBand, type DecodeResult } from './decode.js';

export type PatternKind = 'format' | 'hook' | 'hashtag' | 'length' | 'link_domain';

export interface RankedPost {
  id: string;
  publishedAt: Date;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  decode: Pick<DecodeResult, 'hook' | 'format' | 'length' | 'hashtags' | 'links'>;
}

export interface DetectedPattern {
  kind: PatternKind;
  key: string;
  occurrences: number;
  description: string;
}

export const score = (p: Pick<RankedPost, 'likes' | 'reposts' | 'replies' | 'quotes'>) => p.likes + 2 * p.reposts + p.replies + 2 * p.quotes;

/** The posts patterns are looked for in, best first. */
export function bestPerforming<T extends RankedPost>(posts: T[]): T[] {
  const ranked = [...posts].sort((a, b) => score(b) - score(a) || b.publishedAt.getTime() - a.publishedAt.getTime() || (a.id < b.id ? 1 : -1));
  const n = Math.min(50, Math.max(3, Math.ceil(posts.length / 4)));
  return ranked.slice(0, n);
}

function domainOf(link: string): string | null {
  try {
    return new URL(link).hostname.replace(/^www\./, '').toLowerCase();
  } catch {
    return null;
  }
}

const FORMAT_WORDS: Record<string, string> = {
  thread: 'threads',
  list: 'lists',
  question: 'questions',
  announcement: 'announcements',
  link_share: 'link shares',
  long_form: 'long-form posts',
  short_take: 'short takes',
  statement: 'plain statements',
};
const HOOK_WORDS: Record<string, string> = {
  question: 'open with a question',
  number: 'open with a number',
  how_why: 'open with how/why/what',
  personal: 'open in the first person',
  imperative: 'open with an imperative',
  statement: 'open with a plain statement',
};
const LENGTH_WORDS: Record<string, string> = {
  short: 'short (up to 140 characters)',
  medium: 'medium (141 to 500 characters)',
  long: 'long (over 500 characters)',
};

function describe(kind: PatternKind, key: string, n: number, of: number): string {
  const share = `${n} of the ${of} best-performing posts`;
  switch (kind) {
    case 'format':
      return `${share} are ${FORMAT_WORDS[key] ?? key}`;
    case 'hook':
      return `${share} ${HOOK_WORDS[key] ?? key}`;
    case 'hashtag':
      return `#${key} appears in ${share}`;
    case 'length':
      return `${share} are ${LENGTH_WORDS[key] ?? key}`;
    case 'link_domain':
      return `${share} link to ${key}`;
  }
}

/** The traits of one post, one key per kind (a set, so a post counts once per trait). */
function traits(p: RankedPost): Array<[PatternKind, string]> {
  const out: Array<[PatternKind, string]> = [
    ['format', p.decode.format],
    ['hook', hookKind(p.decode.hook)],
    ['length', lengthBand(p.decode.length)],
  ];
  for (const tag of new Set(p.decode.hashtags)) out.push(['hashtag', tag]);
  for (const d of new Set(p.decode.links.map(domainOf).filter((x): x is string => x !== null))) out.push(['link_domain', d]);
  return out;
}

export function detectPatterns(posts: RankedPost[]): DetectedPattern[] {
  const top = bestPerforming(posts);
  if (top.length < 2) return [];
  const counts = new Map<string, { kind: PatternKind; key: string; n: number }>();
  for (const p of top) {
    for (const [kind, key] of traits(p)) {
      const id = `${kind}\u0000${key}`;
      const c = counts.get(id) ?? { kind, key, n: 0 };
      c.n += 1;
      counts.set(id, c);
    }
  }
  const threshold = Math.max(2, Math.ceil(0.3 * top.length));
  return [...counts.values()]
    .filter((c) => c.n >= threshold)
    .sort((a, b) => b.n - a.n || a.kind.localeCompare(b.kind) || a.key.localeCompare(b.key))
    .map((c) => ({ kind: c.kind, key: c.key.slice(0, 200), occurrences: c.n, description: describe(c.kind, c.key, c.n, top.length) }));
}
