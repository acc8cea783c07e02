// What every platform's counting rules are made of: the shape of the rules (the contract's
// `PlatformCounting` and the per-post caps), the primitives they count with, and the one check of
// a post against a platform's rules (`postProblemOf`). Each platform's own rules live in its folder
// (server/platforms/<name>/counting.ts); services/platform-text.ts finds them through the registry
// (server/platforms/index.ts) and splits threads. Pure: no I/O.
import twitterText from 'twitter-text';
import type { components } from '../../generated/api.js';

/** The platforms a variant can be written for (the contract's `TargetPlatform`; the registry has one folder for each). */
export type TargetPlatform = components['schemas']['TargetPlatform'];

/** How a platform counts a post's length (the contract's `PlatformCounting`). */
export type Counting = 'graphemes' | 'weighted' | 'utf16_code_units' | 'emoji_as_utf8_bytes';

export interface PlatformRules {
  platform: TargetPlatform;
  /** The most a post may count. */
  limit: number;
  counting: Counting;
  /** What every URL counts, whatever its length (null: a URL counts like any other text). */
  urlLength: number | null;
  /** How many hashtags the platform's own guidance suggests per post (null: no norm). The trailing block is trimmed to it. */
  hashtagNorm: number | null;
  /** At most this many distinct links in one post (null: no cap). */
  maxLinks: number | null;
  /** At most this many UTF-8 bytes in one post (null: no cap). */
  maxBytes: number | null;
  /** This service can post to the platform (an adapter exists); the others are written and exported only. */
  publishable: boolean;
}

/** What else a post carries that the platform counts with its text. */
export interface PostExtras {
  /**
   * The content warning the post is published with. Mastodon counts it (`spoiler_text`), as
   * written, before the text in the same 500 (its StatusLengthValidator counts
   * `spoiler_text + countable_text(text)`); Bluesky, which has none, gets it as the line
   * `CW: <warning>` and an empty line before the text (its `posted`), counted with the text.
   * The other platforms have none. Only a thread's first part carries it (`warningOfPart`).
   */
  contentWarning?: string | null;
}

/** One platform's counting: its rules and its count of a post's length. */
export interface PlatformCountingRules {
  rules: PlatformRules;
  count(text: string, extras: PostExtras): number;
  /** Whether the count includes the post's content warning (Mastodon's `spoiler_text`, Bluesky's `CW:` line). */
  countsWarning?: boolean;
  /** The text the platform receives for a post, when it is not the text itself (Bluesky: with its `CW:` line). */
  posted?(text: string, extras: PostExtras): string;
}

const graphemeSegmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const utf8 = new TextEncoder();

export function graphemeCount(text: string): number {
  let n = 0;
  for (const _ of graphemeSegmenter.segment(text)) n += 1;
  return n;
}

/** The grapheme clusters of a text, in order. */
export const graphemes = (text: string): Iterable<{ segment: string }> => graphemeSegmenter.segment(text);

export const codePointCount = (text: string): number => {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
};

export const utf8Bytes = (text: string): number => utf8.encode(text).length;

/** Distinct links of a text (with or without a scheme, as the platforms that cap them find them). */
export function linkCount(text: string): number {
  return new Set(twitterText.extractUrls(text)).size;
}

/** Why a text cannot be one post under these rules, or null when it can (services/platform-text.ts `postProblem`, by platform). */
export function postProblemOf(c: PlatformCountingRules, text: string, extras: PostExtras = {}): string | null {
  const { rules } = c;
  const platform = rules.platform;
  const length = c.count(text, extras);
  const warned = extras.contentWarning && c.countsWarning ? ' with its content warning' : '';
  if (length > rules.limit) return `counts ${length} (${rules.counting})${warned}, over ${platform}'s limit of ${rules.limit}`;
  const bytes = rules.maxBytes === null ? 0 : utf8Bytes(c.posted?.(text, extras) ?? text);
  if (rules.maxBytes !== null && bytes > rules.maxBytes) return `is ${bytes} bytes of UTF-8${warned}, over ${platform}'s ${rules.maxBytes}`;
  if (rules.maxLinks !== null && linkCount(text) > rules.maxLinks) return `has ${linkCount(text)} links, over ${platform}'s ${rules.maxLinks} per post`;
  if (!text.trim()) return 'is empty';
  return null;
}

/** An adapter's `refusesText` under these rules: why the text (with what the post carries) cannot be posted, or null. */
export const refusesTextBy =
  (c: PlatformCountingRules) =>
  (text: string, extras: PostExtras = {}): string | null => {
    const why = postProblemOf(c, text, extras);
    return why ? `the text ${why}` : null;
  };
