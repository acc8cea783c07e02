// The text rules of the platforms a variant can target, and thread splitting. Pure: no I/O.
//
// Each platform counts length its own way, in its folder (server/platforms/<name>/counting.ts,
// found through the registry, server/platforms/index.ts); this module asks them by platform:
// `countLength` counts as the platform does, `fitsOnePost` applies the platform's other per-post
// rules (Bluesky's byte cap, Threads' link cap), and `splitThread` cuts a text that does not fit
// into posts that do — at paragraph, then line, then sentence, then word boundaries, never inside
// a word, URL, mention or hashtag. docs/drafting.md ("Platform variants") says where each rule
// comes from.
import twitterText from 'twitter-text';
import { codePointCount, postProblemOf, type PlatformRules, type PostExtras, type TargetPlatform } from '../platforms/counting.js';
import { countingOf, TARGET_PLATFORMS } from '../platforms/rules.js';

export { codePointCount, graphemeCount, linkCount, utf8Bytes } from '../platforms/counting.js';
export { isTargetPlatform, TARGET_PLATFORMS } from '../platforms/rules.js';
export type { Counting, PlatformRules, PostExtras, TargetPlatform } from '../platforms/counting.js';
export { mastodonCountable, mastodonLength } from '../platforms/mastodon/counting.js';
export { withWarning } from '../platforms/bluesky/counting.js';

/** Each platform's counting, from its folder (server/platforms/<name>/counting.ts). */

export const PLATFORM_RULES = Object.fromEntries(TARGET_PLATFORMS.map((p) => [p, countingOf(p).rules])) as Record<TargetPlatform, PlatformRules>;

export const rulesFor = (platform: TargetPlatform): PlatformRules => PLATFORM_RULES[platform];

// ---- counting ----

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
const wordSegmenter = new Intl.Segmenter('en', { granularity: 'word' });

/**
 * The content warning a part of a thread is published with: the first part carries the
 * artifact's warning (Mastodon's `spoiler_text`, Bluesky's `CW:` line), the replies none.
 * Publishing and every length check ask this, so what is counted is what is posted.
 */
export const warningOfPart = (position: number, contentWarning: string | null | undefined): string | null => (position === 0 ? (contentWarning ?? null) : null);

/** What a part of a thread carries with its text (see `warningOfPart`). */
export const extrasOfPart = (position: number, contentWarning: string | null | undefined): PostExtras => ({
  contentWarning: warningOfPart(position, contentWarning),
});

/** A post's length as the platform counts it, with its content warning (Mastodon's `spoiler_text`, Bluesky's `CW:` line). */
export function countLength(platform: TargetPlatform, text: string, extras: PostExtras = {}): number {
  return countingOf(platform).count(text, extras);
}

/** Why a text cannot be one post on the platform, or null when it can. */
export function postProblem(platform: TargetPlatform, text: string, extras: PostExtras = {}): string | null {
  return postProblemOf(countingOf(platform), text, extras);
}

export const fitsOnePost = (platform: TargetPlatform, text: string, extras: PostExtras = {}): boolean => postProblem(platform, text, extras) === null;

// ---- adapting a text to a platform ----

const TRAILING_TAGS = /(?:^|\s)((?:#[\p{L}\p{M}\p{N}_]+\s*)+)$/u;

/**
 * The text as it should go to the platform: line endings normalised, runs of blank lines
 * collapsed, and a trailing block of hashtags trimmed to the platform's norm (X 2, LinkedIn 3,
 * Threads 1; the first ones are kept). Hashtags inside sentences are prose and stay.
 */
export function adaptText(platform: TargetPlatform, text: string): string {
  const clean = text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const norm = PLATFORM_RULES[platform].hashtagNorm;
  const m = TRAILING_TAGS.exec(clean);
  if (norm === null || !m) return clean;
  const tags = m[1]!.trim().split(/\s+/);
  if (tags.length <= norm) return clean;
  const head = clean.slice(0, clean.length - m[1]!.length);
  return `${head}${tags.slice(0, norm).join(' ')}`.trim();
}

// ---- thread splitting ----

/** The most parts a thread may have. */
export const MAX_PARTS = 100;

export type SplitResult = { ok: true; parts: string[] } | { ok: false; reason: string };

/** `contentWarning`: the artifact's, counted with the first part (the one that carries it). */
export interface SplitOptions extends PostExtras {
  /** Number the parts (` 1/3` at the end of each); counted in the limit. Only threads are numbered. */
  numbered?: boolean;
}

// Where a line may break: ordinary white space (never a no-break space).
const BREAKABLE = /[\t\n\v\f\r \u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]/;
const BREAKABLE_RUN = /[\t\n\v\f\r \u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]+/g;
// Scripts written without spaces between words: there, a word boundary is a place to cut.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORDISH = /[\p{L}\p{N}\p{Ps}]/u;

/** Strips breakable white space (not no-break spaces) from both ends. */
export function trimBreakable(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && BREAKABLE.test(s[a]!)) a += 1;
  while (b > a && BREAKABLE.test(s[b - 1]!)) b -= 1;
  return s.slice(a, b);
}

/** The spans no cut may enter: URLs (with or without a scheme), mentions, hashtags, and anything glued to them. */
function protectedSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const e of twitterText.extractUrlsWithIndices(text)) spans.push([e.indices[0], e.indices[1]]);
  for (const re of [
    /https?:\/\/[^\s]+/gu,
    /(?<![\p{L}\p{N}_])@[\p{L}\p{M}\p{N}_.-]+(?:@[\p{L}\p{M}\p{N}_.-]+)?/gu,
    /(?<![\p{L}\p{N}_&])#[\p{L}\p{M}\p{N}_]+/gu,
  ]) {
    for (const m of text.matchAll(re)) spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}

/** A cut between `end` (where a part stops) and `next` (where the next one starts), of a level: 3 paragraph, 2 line, 1 sentence, 0 word. */
interface Cut {
  end: number;
  next: number;
  level: number;
}

function cutsOf(text: string): Cut[] {
  const inside = new Uint8Array(text.length + 1);
  for (const [a, b] of protectedSpans(text)) for (let i = a + 1; i < b; i += 1) inside[i] = 1;
  const sentenceStarts = new Set<number>();
  for (const s of sentenceSegmenter.segment(text)) sentenceStarts.add(s.index);
  const cuts = new Map<number, Cut>();
  // White space: the part ends before the run, the next starts after it.
  for (const m of text.matchAll(BREAKABLE_RUN)) {
    const end = m.index;
    const next = end + m[0].length;
    if (end === 0 || next === text.length || inside[end] || inside[next]) continue;
    const level = /\n[^\S\n]*\n/.test(m[0]) ? 3 : m[0].includes('\n') ? 2 : sentenceStarts.has(next) ? 1 : 0;
    cuts.set(end, { end, next, level });
  }
  // Word boundaries inside a run of a script without spaces (CJK, Thai, …).
  for (const w of UNSPACED.test(text) ? wordSegmenter.segment(text) : []) {
    const at = w.index;
    if (at === 0 || inside[at] || cuts.has(at)) continue;
    const beforeChar = [...text.slice(Math.max(0, at - 2), at)].pop() ?? '';
    const afterChar = String.fromCodePoint(text.codePointAt(at)!);
    if (BREAKABLE.test(beforeChar) || BREAKABLE.test(afterChar)) continue;
    if (!(UNSPACED.test(beforeChar) || UNSPACED.test(afterChar))) continue;
    // Not before a closing mark (。、」) nor after an opening one (「).
    if (!WORDISH.test(afterChar) || /\p{Ps}/u.test(beforeChar)) continue;
    cuts.set(at, { end: at, next: at, level: sentenceStarts.has(at) ? 1 : 0 });
  }
  return [...cuts.values()].sort((a, b) => a.end - b.end);
}

const suffixOf = (i: number, n: number) => ` ${i}/${n}`;
const preview = (token: string) => (codePointCount(token) > 60 ? `${[...token].slice(0, 57).join('')}...` : token);

/**
 * Splits a text into posts that each fit the platform (see `fitsOnePost`). A text that fits is one
 * part. Otherwise each part takes as much as fits, ending at the strongest boundary available —
 * a paragraph, a line, a sentence, a word — as long as that keeps at least half of what the
 * weakest boundary would; cuts never fall inside a word, URL, mention or hashtag. With
 * `numbered`, each part of a thread ends with ` i/n`, counted in the limit. Refused (with the
 * reason) when one uncuttable stretch alone does not fit, or when more than MAX_PARTS parts are needed.
 */
export function splitThread(platform: TargetPlatform, text: string, opts: SplitOptions = {}): SplitResult {
  const whole = trimBreakable(text);
  if (!whole) return { ok: false, reason: 'the text is empty' };
  const extras: PostExtras = { contentWarning: opts.contentWarning ?? null };
  if (fitsOnePost(platform, whole, extras)) return { ok: true, parts: [whole] };
  const cuts = cutsOf(whole);
  // The numbering takes room in every part; reserve for the widest "n/n" and widen until stable.
  let digits = opts.numbered ? 1 : 0;
  for (;;) {
    const reserve = opts.numbered ? suffixOf(10 ** digits - 1, 10 ** digits - 1) : '';
    const split = greedy(platform, whole, cuts, reserve, extras);
    if (!split.ok || !opts.numbered) return split;
    const n = split.parts.length;
    if (String(n).length > digits) {
      digits = String(n).length;
      continue;
    }
    const parts = split.parts.map((p, i) => p + suffixOf(i + 1, n));
    const over = parts.findIndex((p, i) => !fitsOnePost(platform, p, i === 0 ? extras : {}));
    if (over === -1) return { ok: true, parts };
    digits += 1; // a platform whose count is not additive; reserve more and try again
    if (digits > 4) return { ok: false, reason: `part ${over + 1} does not fit with its numbering` };
  }
}

function greedy(platform: TargetPlatform, text: string, cuts: Cut[], reserve: string, extras: PostExtras): SplitResult {
  // The end of the text is the last place to stop (level 4: it ends every kind of unit).
  const all: Cut[] = [...cuts, { end: text.length, next: text.length, level: 4 }];
  const parts: string[] = [];
  let from = 0;
  let first = 0;
  while (from < text.length) {
    while (all[first]!.end <= from) first += 1;
    // The content warning goes with the first part only (warningOfPart).
    const carried = parts.length === 0 ? extras : {};
    const fits = (k: number) => fitsOnePost(platform, trimBreakable(text.slice(from, all[k]!.end)) + reserve, carried);
    if (!fits(first)) {
      const token = trimBreakable(text.slice(from, all[first]!.end));
      return { ok: false, reason: `"${preview(token)}" cannot be split and alone ${postProblem(platform, token + reserve, carried) ?? 'does not fit'}` };
    }
    const last = farthest(all.length, first, fits);
    const room = all[last]!.end - from;
    // The strongest boundary that keeps at least half of what the farthest one takes.
    let chosen = last;
    for (const level of [3, 2, 1]) {
      let k = last;
      while (k >= first && all[k]!.level < level) k -= 1;
      if (k >= first && all[k]!.end - from >= room / 2 && fits(k)) {
        chosen = k;
        break;
      }
    }
    parts.push(trimBreakable(text.slice(from, all[chosen]!.end)));
    from = all[chosen]!.next;
    if (parts.length > MAX_PARTS) return { ok: false, reason: `the text needs more than ${MAX_PARTS} posts on ${platform}` };
  }
  return { ok: true, parts };
}

/**
 * The last index in [lo, n) that fits, given that `lo` fits: a galloping search (1, 2, 4, … cuts
 * ahead, then halving), so that the texts measured stay near one post's length however long the
 * rest of the text is. A part's length grows with its end, which is what makes the search valid.
 */
function farthest(n: number, lo: number, fits: (k: number) => boolean): number {
  let step = 1;
  let hi = n;
  while (lo + step < n) {
    if (!fits(lo + step)) {
      hi = lo + step;
      break;
    }
    lo += step;
    step *= 2;
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}
