// Threads' counting (docs/drafting.md, "Platform variants").
import { codePointCount, graphemes, utf8Bytes, type PlatformCountingRules } from '../counting.js';

const EMOJI_GRAPHEME = /[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}]/u;

/** Threads: every emoji counts as its UTF-8 bytes, any other character as one. */
function threadsLength(text: string): number {
  let n = 0;
  for (const { segment } of graphemes(text)) n += EMOJI_GRAPHEME.test(segment) ? utf8Bytes(segment) : codePointCount(segment);
  return n;
}

export const threadsCounting: PlatformCountingRules = {
  // Meta's Threads API: 500 characters, emoji counted as their UTF-8 bytes, at most 5 links, one topic tag.
  rules: {
    platform: 'threads',
    limit: 500,
    counting: 'emoji_as_utf8_bytes',
    urlLength: null,
    hashtagNorm: 1,
    maxLinks: 5,
    maxBytes: null,
    publishable: true,
  },
  count: (text: string) => threadsLength(text),
};
