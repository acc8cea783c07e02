// Bluesky's counting (docs/drafting.md, "Platform variants").
import { graphemeCount, type PlatformCountingRules, type PostExtras } from '../counting.js';

/** Bluesky has no content warning: the post opens with the line `CW: <warning>` and an empty line. */
export const withWarning = (text: string, warning: string | null | undefined): string => (warning ? `CW: ${warning}\n\n${text}` : text);

export const blueskyCounting: PlatformCountingRules = {
  // app.bsky.feed.post: text maxGraphemes 300, maxLength 3000 (bytes). Links count in full: the post's text is sent as written,
  // with the content warning's `CW:` line before it.
  rules: { platform: 'bluesky', limit: 300, counting: 'graphemes', urlLength: null, hashtagNorm: null, maxLinks: null, maxBytes: 3000, publishable: true },
  count: (text: string, extras: PostExtras) => graphemeCount(withWarning(text, extras.contentWarning)),
  countsWarning: true,
  posted: (text: string, extras: PostExtras) => withWarning(text, extras.contentWarning),
};
