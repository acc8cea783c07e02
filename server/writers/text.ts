// Small text tools the writers share: sentences, links, hashtags, emoji, keywords, and fitting a
// draft into a platform's length budget. Pure functions, no network. The built-in writer may
// reorder and drop what its sources say, never alter a token of it (a word, a file name, a URL,
// a mention, a number): these tools cut at white space and drop whole words, and change no
// character inside one (test/unit/writer-tokens.test.ts checks it over generated texts).
//
// Their input is a post's text as stored, which is plain text for every source: the adapters
// that read HTML (Mastodon, WordPress, feeds) turn it into text once, when they read it, and X's
// entities are decoded once at import. Nothing here parses markup: a `<`, `&` or `<script>` the
// author wrote is a character like any other.

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

const URL_RE = /\bhttps?:\/\/[^\s<>"')\]]+/gi;
const HASHTAG_RE = /(^|[^\p{L}\p{N}_&/])#([\p{L}\p{N}_]{1,60})/gu;
// An emoji is a whole grapheme cluster (user-perceived character) made only of emoji code points
// (pictographs, skin tones, ZWJ, selectors, keycap marks, flag and tag letters, and the digits,
// `#` and `*` that start a keycap) and shown as one: with an emoji-style code point, the emoji
// selector U+FE0F, a keycap mark or a flag letter. A symbol written as text (`©`, `™`, `↔`, `#`)
// is not one; a cluster with a letter in it (Sinhala `ශ්‍රී`, joined by a ZWJ) is not one.
const EMOJI_ONLY = /^[\p{Emoji}\p{Emoji_Component}\p{Extended_Pictographic}]+$/u;
const EMOJI_SHOWN = /[\p{Emoji_Presentation}\p{Regional_Indicator}\u{FE0F}\u{20E3}]/u;

/** Code points, the unit we budget in (never fewer than Bluesky's graphemes). */
export const charCount = (s: string): number => [...s].length;

/**
 * A sentence's first letter in upper case when its first word is a plain lower-case word
 * (`we` → `We`); a word that is not (`iPhone`, `ffmpeg.exe`, `@ada`, `v2.3`, a URL) stays as written.
 */
export function sentenceCase(s: string): string {
  const first = /^\S+/.exec(s)?.[0] ?? '';
  return /^\p{Ll}[\p{Ll}'’-]*[,;:.!?]?$/u.test(first) ? s[0]!.toUpperCase() + s.slice(1) : s;
}

export function extractLinks(text: string): string[] {
  return [...new Set((text.match(URL_RE) ?? []).map((u) => u.replace(/[.,;:!?]+$/, '')))];
}

export function extractHashtags(text: string): string[] {
  return [...new Set([...text.matchAll(HASHTAG_RE)].map((m) => m[2]!))];
}

/** The text's grapheme clusters, in order (what a reader sees as one character each). */
export const clusters = (text: string): string[] => Array.from(graphemes.segment(text), (g) => g.segment);

/** Whether a grapheme cluster is an emoji (see EMOJI_ONLY and EMOJI_SHOWN): `👩🏽‍💻`, `1️⃣`, `1⃣`, `🇫🇷`, a lone `🏽`. */
export const isEmoji = (cluster: string): boolean => EMOJI_SHOWN.test(cluster) && EMOJI_ONLY.test(cluster);

export const hasEmoji = (text: string): boolean => EMOJI_SHOWN.test(text) && clusters(text).some(isEmoji);
/** The first emoji of the text, whole (`👩🏽‍💻`, never its `👩` alone), or null. */
export const firstEmoji = (text: string): string | null => (EMOJI_SHOWN.test(text) ? (clusters(text).find(isEmoji) ?? null) : null);
/**
 * The text without its emoji: whole grapheme clusters go, or nothing does. No skin tone, keycap
 * mark, selector or joiner is left behind, and none is taken out of a cluster that stays (a
 * Sinhala or Devanagari conjunct keeps its ZWJ/ZWNJ). Spaces the removal doubles are collapsed.
 */
export function stripEmoji(text: string): string {
  if (!EMOJI_SHOWN.test(text)) return text.trim();
  return clusters(text)
    .map((c) => {
      if (isEmoji(c)) return '';
      // A modifier or keycap mark written after a space joins the space's cluster: the space stays.
      const space = /^\s+/u.exec(c)?.[0];
      return space && isEmoji(c.slice(space.length)) ? space : c;
    })
    .join('')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/**
 * The prose of a post: links removed, a trailing block of hashtags removed, inline hashtags
 * turned back into words (`#release` → `release`).
 */
export function prose(text: string): string {
  return text
    .replace(URL_RE, ' ')
    .replace(/(\s*#[\p{L}\p{N}_]+)+\s*$/u, '')
    .replace(HASHTAG_RE, '$1$2')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/** Sentences, one per element: line breaks end a sentence too, and list markers are dropped. */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    // eslint-disable-next-line no-misleading-character-class -- `▶︎` is ▶ with its text-style selector; either strips
    const clean = line.replace(/^\s*(?:[-*•→▶︎✅]|\d+[.)])\s+/u, '').trim();
    if (!clean) continue;
    // No sentence ends inside a URL (the segmenter would cut `…?utm_source=…` at its `?`).
    const urls = [...clean.matchAll(URL_RE)].map((m) => [m.index, m.index + m[0].length] as const);
    let start = 0;
    const push = (s: string) => {
      if (/[\p{L}\p{N}]/u.test(s.trim())) out.push(s.trim());
    };
    for (const seg of segmenter.segment(clean)) {
      const at = seg.index;
      if (at === 0 || urls.some(([a, b]) => at > a && at < b)) continue;
      push(clean.slice(start, at));
      start = at;
    }
    push(clean.slice(start));
  }
  return out;
}

// Words that carry no meaning on their own: left out of keywords, and trimmed as filler.
const STOPWORDS = new Set(
  (
    'a an the and or but if then than so of to in on at by for with from as is are was were be been being it its this that these those ' +
    'i me my we our you your he she they them their his her not no yes do does did done have has had will would can could should ' +
    'just really very also about into over after before more most some any all one two new get got make made what when where which who ' +
    "why how here there out up down now today today's still even only our us am im i'm it's we're you're"
  ).split(' '),
);
// A filler word with the comma before it (`, honestly`) and the white space around it.
// A word inside a tag or an entity written as text (`<really>`, `&just;`) is part of that token.
const FILLER =
  /(,?)(\s*)(?<![\p{L}\p{N}_.@#/<&-])(?:just|really|very|basically|actually|literally|honestly|simply|kind of|sort of|i think|i guess|to be honest)(?![\p{L}\p{N}_@/>;-]|\.[\p{L}\p{N}])\s*/giu;

/**
 * A sentence without filler words (whole words only, never a part of one: `justify`,
 * `really.md` and `@simply` stay), its first letter in upper case when that is a plain word.
 * Only what the removal itself leaves is tidied (`was really.` → `was.`, `yes, honestly, it` →
 * `yes, it`); white space the author put before a `.` or `,` (`a .docx file`) stays.
 */
export function condense(sentence: string): string {
  const s = sentence
    .replace(FILLER, (m: string, comma: string, _space: string, offset: number, all: string) => {
      const next = all.slice(offset + m.length);
      if (!next || /^[,.!?;:](?![\p{L}\p{N}])/u.test(next)) return ''; // `was really.` → `was.`; `yes, honestly, it` → `yes, it`
      if (comma) return `${comma} `; // `yes, honestly it` → `yes, it`
      return offset === 0 ? '' : ' ';
    })
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
  return sentenceCase(s);
}

export const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];

/** The most frequent meaningful words, most frequent first (ties: first seen first). */
export function keywords(text: string, n: number): string[] {
  const counts = new Map<string, number>();
  for (const w of words(text)) {
    if (w.length < 4 || STOPWORDS.has(w) || /^\d+$/.test(w)) continue;
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([w]) => w);
}

/** Splits a long sentence at its clause boundaries, for a style of short sentences. */
export function shortSentences(sentence: string, maxWords: number): string[] {
  if (words(sentence).length <= maxWords) return [sentence];
  const parts = sentence
    .split(/;\s+|\s+[—–]\s+|,\s+(?=(?:and|but|so|which|because|while)\b)/i)
    .map((p) =>
      p
        .replace(/^(?:and|but|so|which|because|while)\s+/i, '')
        .replace(/[,;]$/, '')
        .trim(),
    )
    .filter((p) => words(p).length >= 2);
  if (parts.length < 2) return [sentence];
  return parts.map((p) => {
    const c = sentenceCase(p);
    return /[.!?]$/.test(c) ? c : `${c}.`;
  });
}

/** Ends a line with a full stop unless it already ends with punctuation. */
export const terminate = (s: string): string => (/[.!?:…)"”]$/.test(s) ? s : `${s}.`);

/**
 * Fits text into `limit` code points: cut at the last line or sentence end that fits, else at the
 * last white space with an ellipsis (never inside a word, unless one word alone is longer than
 * the limit). Both writers use it, so no draft is ever too long to publish.
 */
export function fitToLimit(text: string, limit: number): string {
  const chars = [...text.trim()];
  if (chars.length <= limit) return chars.join('');
  const head = chars.slice(0, limit).join('');
  const boundary = Math.max(head.lastIndexOf('\n'), ...['. ', '! ', '? '].map((p) => head.lastIndexOf(p) + 1));
  if (boundary > limit * 0.5) return head.slice(0, boundary).trim();
  const cut = [...head].slice(0, limit - 1).join('');
  const space = Math.max(cut.lastIndexOf(' '), cut.lastIndexOf('\n'));
  return `${(space > 0 ? cut.slice(0, space) : wholeClusters(cut, text)).trim()}…`;
}

/** `head` (a prefix of `text`) without the grapheme cluster `text` goes on with after it, when `head` ends inside one. */
function wholeClusters(head: string, text: string): string {
  let end = 0;
  for (const g of graphemes.segment(text.trim())) {
    if (g.index + g.segment.length > head.length) break;
    end = g.index + g.segment.length;
  }
  return head.slice(0, end);
}

/** Compares two texts by their words only, to tell a real rewrite from a copy. */
export const sameWords = (a: string, b: string): boolean => words(a).join(' ') === words(b).join(' ');
