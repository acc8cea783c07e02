// Mastodon's counting (docs/drafting.md, "Platform variants").
import twitterText from 'twitter-text';
import { graphemeCount, type PlatformCountingRules, type PostExtras } from '../counting.js';

/**
 * URLs as Mastodon finds them: twitter-text's URL pattern, with a scheme only, and of any length
 * (Mastodon's lib/extractor.rb scans `valid_url` without the 4,096-character cap of twitter-text's
 * own extractor: its spec counts a 5,000-character URL as 23).
 */
function urlsWithScheme(text: string): Array<{ start: number; end: number }> {
  if (!text.includes(':')) return [];
  const re = new RegExp(twitterText.regexen.extractUrl.source, 'g');
  const out: Array<{ start: number; end: number }> = [];
  for (const m of text.matchAll(re)) {
    const [url, protocol] = [m[3] ?? '', m[4]];
    if (!protocol || !url) continue;
    const end = m.index + m[0].length;
    out.push({ start: end - url.length, end });
  }
  return out;
}

// Mastodon's composer: a remote mention counts as its local part (`@ada@example.social` → `@ada`).
const REMOTE_MENTION = /(^|[^/\w])@(([a-z0-9_]+)@[a-z0-9.-]+[a-z0-9]+)/gi;

/** The text Mastodon counts: every URL (with a scheme) replaced by 23 characters, remote mentions by their local part. */
export function mastodonCountable(text: string): string {
  // Replace from the end so that earlier indices stay valid (twitter-text indices are UTF-16 here).
  let out = text;
  for (const u of urlsWithScheme(text).reverse()) out = out.slice(0, u.start) + 'x'.repeat(23) + out.slice(u.end);
  return out.replace(REMOTE_MENTION, '$1@$3');
}

/**
 * Mastodon's count, as its StatusLengthValidator makes it: the grapheme clusters of the content
 * warning (as written) followed by the text with every URL as 23 characters and every remote
 * mention as its local part.
 */
export function mastodonLength(text: string, contentWarning?: string | null): number {
  const countable = text.trim() ? mastodonCountable(text) : '';
  return graphemeCount((contentWarning ?? '') + countable);
}

export const mastodonCounting: PlatformCountingRules = {
  // Mastodon's StatusLengthValidator: grapheme clusters of the content warning and the text together,
  // every URL in the text as 23 and a remote mention `@user@domain` as `@user`.
  rules: { platform: 'mastodon', limit: 500, counting: 'graphemes', urlLength: 23, hashtagNorm: null, maxLinks: null, maxBytes: null, publishable: true },
  count: (text: string, extras: PostExtras) => mastodonLength(text, extras.contentWarning),
  countsWarning: true,
};
