// The built-in writer may reorder and drop what its sources say, never alter a token of it (a
// word, a file name, a URL, a mention, a number): over generated texts shaped like real posts
// (file names written with a space before the dot, URLs with parentheses and queries, remote
// mentions, versions and figures, CJK, RTL, combining marks, emoji sequences, filler words and
// odd spacing), every token of every draft appears in its sources, in every tone and style. A
// token is a run of non-space characters without the punctuation around it; only the writer's
// own framing words ("In short:", "3 takeaways:", "Read more") and, at the start of a sentence,
// the case of a plain word's first letter may differ.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtinWriter } from '../../server/writers/builtin.js';
import { condense, plainText, sentenceCase } from '../../server/writers/text.js';
import type { DraftInput, SourceMaterial } from '../../server/writers/types.js';

// Emoji, their joiners and modifiers are not tokens: a style without emoji drops them.
// eslint-disable-next-line no-misleading-character-class -- the joiners and modifiers are listed on purpose
const EMOJI_PARTS = /[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}\u{FE0F}\u{200D}\u{20E3}\u{1F3FB}-\u{1F3FF}]/gu;
const tokens = (text: string): string[] =>
  text
    .replace(EMOJI_PARTS, ' ')
    .split(/\s+/u)
    .map((t) => t.replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, ''))
    .filter(Boolean);

/** The words the writer frames a draft with (its angles, labels and closings), and list numbers. */
const OWN = new Set(
  tokens(
    'One takeaway takeaways In short The details Worth knowing Context posts one thread Roundup What connects these Recap of recent ' +
      'Details Reference More Full story Have a look More here Read more What would you add How do you handle this Curious what you think ' +
      'Thoughts Feedback welcome Worth a look',
  ),
);
const PLAIN_WORD = /^\p{L}[\p{Ll}'’-]*$/u;
const flip = (t: string) => (t[0] === t[0]!.toUpperCase() ? t[0]!.toLowerCase() : t[0]!.toUpperCase()) + t.slice(1);

/** The draft's tokens that appear nowhere in its sources. */
function alteredTokens(draft: string, sources: string[]): string[] {
  const known = new Set(sources.flatMap((s) => tokens(plainText(s))));
  return tokens(draft).filter((t) => !known.has(t) && !OWN.has(t) && !/^\d{1,2}$/.test(t) && !(PLAIN_WORD.test(t) && known.has(flip(t))));
}

// ---- real-shaped material ----
const words = fc.constantFrom(
  'shipped',
  'the',
  'importer',
  'streams',
  'rows',
  'instead',
  'of',
  'loading',
  'whole',
  'file',
  'memory',
  'dropped',
  'We',
  'It',
  'faster',
  'release',
  'notes',
  'customers',
  'and',
  'but',
  'because',
  'which',
  'generate',
  'a',
  'Parquet',
  'iPhone',
  'NASA',
  'ffmpeg',
  'café',
  'naïve',
  'e\u0301clair',
  '東京の顧客データ',
  'שלום',
  'مرحبا',
  '𝒜lgebra',
  'don’t',
  "it's",
  'co-op',
);
const filler = fc.constantFrom('just', 'really', 'very', 'basically', 'actually', 'honestly', 'kind of', 'I think', 'to be honest');
const special = fc.constantFrom(
  'a .docx file',
  '.env',
  'README.md',
  'config.yaml',
  '~/Downloads/twitter-2024.zip',
  'C:\\Users\\ada\\notes.txt',
  'https://example.org/blog/v2-3?utm_source=thread&x=1',
  'https://en.wikipedia.org/wiki/Unicode_(disambiguation)',
  'example.com/docs',
  '@ada@fosstodon.org',
  '@lin.bsky.social',
  '#release',
  '#東京',
  'v2.3',
  '4x',
  '2 GB',
  '150 MB',
  '1,200',
  '3.14',
  '-5%',
  '$40',
  '10:30',
  '2026-11-26',
  'C++',
  '.NET',
  'node.js',
  'i18n',
  'e.g.',
  '👩🏽‍💻',
  '🇫🇷',
  '👨‍👩‍👧‍👦',
  '1️⃣',
);
const punct = fc.constantFrom('', '', '', ',', ' ,', ' :', ';', ' —', ' (see below)');
const end = fc.constantFrom('.', '!', '?', ' !', '…', ' .', '');
const sentence = fc
  .tuple(
    fc.array(fc.oneof({ weight: 6, arbitrary: words }, { weight: 3, arbitrary: special }, { weight: 1, arbitrary: filler }), { minLength: 3, maxLength: 16 }),
    punct,
    end,
  )
  .map(([ws, p, e]) => {
    const s = ws.join(' ');
    const at = Math.floor(s.length / 2);
    const cut = s.indexOf(' ', at);
    return `${cut > 0 ? s.slice(0, cut) + p + s.slice(cut) : s}${e}`;
  });
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 4 }).map((ss) => ss.join(' '));
const post = fc
  .tuple(fc.array(paragraph, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.constantFrom('', '\n\n#opensource #release', ' #csv'))
  .map(([ps, bullets, tags]) => (bullets ? ps.map((p) => `- ${p}`).join('\n') : ps.join('\n\n')) + tags);
const material = (text: string, i = 0): SourceMaterial => ({
  text,
  url: `https://mastodon.example/@ada/${100 + i}`,
  platform: 'mastodon',
  decode: null,
  metrics: { likes: i, reposts: 0, replies: 0, quotes: 0 },
});

describe('the built-in writer never alters a token', () => {
  it('a real post: "generate a .docx file" keeps its space before the dot', async () => {
    const text =
      'Our export tool can now generate a .docx file from any draft, honestly a small change. It also writes README.md and keeps https://example.org/a_(b) intact.';
    const { text: draft } = await builtinWriter.write(
      {
        source: material(text),
        more: [],
        intent: 'release notes',
        tone: 'concise',
        styleReference: null,
        platform: 'mastodon',
        parentText: null,
        variation: 0,
      },
      { outbound: null as never },
    );
    expect(draft).toContain('generate a .docx file');
    expect(alteredTokens(draft, [text])).toEqual([]);
  });

  it('condense drops filler words whole and tidies only what their removal leaves', () => {
    expect(condense('we generate a .docx file , honestly.')).toBe('We generate a .docx file .');
    expect(condense('shipped just .env files')).toBe('Shipped .env files');
    expect(condense('It was really.')).toBe('It was.');
    expect(condense('Yes, honestly, it works')).toBe('Yes, it works');
    expect(condense('Really good: justify really.md and @simply')).toBe('Good: justify really.md and @simply');
    expect(sentenceCase('iPhone sales grew')).toBe('iPhone sales grew');
    expect(sentenceCase('we shipped')).toBe('We shipped');
  });

  it('one HTML→text: entities beyond the five, <br> and paragraphs, as the importers read them', () => {
    expect(plainText('<p>Caf&eacute; &mdash; 5&nbsp;&gt;&nbsp;3 &#x1F680;</p><p>second<br>line</p>')).toBe('Café — 5 > 3 🚀\n\nsecond\nline');
  });

  it('every token of a draft appears in its sources, whatever the tone, style, platform and variation', async () => {
    await fc.assert(
      fc.asyncProperty(
        post,
        fc.array(post, { maxLength: 2 }),
        fc.constantFrom(null, 'friendly', 'enthusiastic', 'formal and technical', 'concise'),
        fc.constantFrom(null, 'Short sentences. No emoji.', 'One idea per line.\nNo hashtags.\nLike this.', 'all lower case, always. 🚀 like this'),
        fc.constantFrom('mastodon', 'bluesky', 'rss'),
        fc.nat({ max: 7 }),
        async (text, more, tone, styleReference, platform, variation) => {
          const input: DraftInput = {
            source: material(text),
            more: more.map((m, i) => material(m, i + 1)),
            intent: 'Weekly posts about our open-source releases',
            tone,
            styleReference,
            platform,
            parentText: null,
            variation,
          };
          const { text: draft } = await builtinWriter.write(input, { outbound: null as never });
          expect(alteredTokens(draft, [text, ...more])).toEqual([]);
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 300), seed: Number(process.env.FC_SEED ?? 2511) },
    );
  });
});
