// The built-in writer may reorder and drop what its sources say, never alter a token of it (a
// word, a file name, a URL, a mention, a number): over generated texts shaped like real posts
// (file names written with a space before the dot, URLs with parentheses and queries, remote
// mentions, versions and figures, CJK, RTL, combining marks, emoji sequences, filler words and
// odd spacing), every token of every draft appears in its sources, in every tone and style. A
// token is a run of non-space characters without the punctuation around it; only the writer's
// own framing words ("In short:", "3 takeaways:", "Read more") and, at the start of a sentence,
// the case of a plain word's first letter may differ.
//
// And the other way: a draft that keeps the whole source keeps every word of it, `<`, `&`, `>`
// and tags written as text included (a post's text is plain text and is never read as markup
// again), over every post of the real exports (the fixtures and the generated exports, read by
// the importers); the only things left out are those the writer removes on purpose (filler
// words, emoji, list markers, links and hashtags it moves to the end). Emoji go as whole grapheme
// clusters or not at all: no other grapheme is lost and none is left in part.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtinWriter } from '../../server/writers/builtin.js';
import { htmlToText } from '../../server/adapters/text.js';
import { bufferSource, readExport, scanExport } from '../../server/adapters/archive/index.js';
import { clusters, condense, fitToLimit, isEmoji, prose, sentenceCase, sentences, stripEmoji } from '../../server/writers/text.js';
import type { DraftInput, SourceMaterial } from '../../server/writers/types.js';
import { archiveFixture } from '../support/api.js';
import { linkedInArchive, mastodonArchive, writeZip, xArchive } from '../support/exports.js';
import { blueskyRepo, instagramExport, wordpressExport, wxrBytes } from '../support/exports-formats.js';

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
  const known = new Set(sources.flatMap((s) => tokens(s)));
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
    expect(condense('Use <really> and &just; and </simply> as written')).toBe('Use <really> and &just; and </simply> as written');
    expect(sentenceCase('iPhone sales grew')).toBe('iPhone sales grew');
    expect(sentenceCase('we shipped')).toBe('We shipped');
  });

  it('one HTML→text: entities beyond the five, <br> and paragraphs, as the importers read them', () => {
    expect(htmlToText('<p>Caf&eacute; &mdash; 5&nbsp;&gt;&nbsp;3 &#x1F680;</p><p>second<br>line</p>')).toBe('Café — 5 > 3 🚀\n\nsecond\nline');
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

// ---- the other way: the author's words survive ----

/** What an author writes as text that a markup reader would eat or change. */
const WRITTEN_AS_TEXT = [
  '<',
  '>',
  '&',
  '<script>',
  '</p>',
  '<b>bold</b>',
  'a<b',
  'x &amp; y',
  '&lt;div&gt;',
  'cout<<-1<<endl;//return',
  '<3',
  '&nbsp;',
  '<!--',
  '-->',
  '<br>',
  '&#x1F680;',
  "<a href='https://example.org'>",
  '<img src=x onerror=alert(1)>',
  '1 < 2 > 0',
  'si<ti全く気づかなかった',
  '<really>',
  '</just>',
  '&simply;',
];
/** Glued inside a word, as in `si<ti`. */
const GLUED = ['<', '&', '>', '<ti', '&amp;', '<<', '&lt;'];

/** Every post of the real exports as the importers store it: the fixtures, and generated exports of every format. */
async function realPosts(): Promise<Array<{ format: string; text: string }>> {
  const exportsOf: Array<Buffer | null> = [
    Buffer.from(archiveFixture('x-tweets.js')),
    Buffer.from(archiveFixture('mastodon-outbox.json')),
    Buffer.from(archiveFixture('linkedin-Shares.csv')),
    await writeZip(xArchive({ posts: 60, seed: 7 }).files),
    await writeZip(mastodonArchive({ posts: 60, seed: 7 }).files),
    await writeZip(linkedInArchive({ posts: 40, seed: 7 }).files),
    await writeZip(instagramExport({ posts: 20 }).files),
    await (await blueskyRepo({ posts: 40, seed: 7 })).write(),
    wxrBytes(wordpressExport({ posts: 20, seed: 7 })),
  ];
  const out: Array<{ format: string; text: string }> = [];
  for (const bytes of exportsOf) {
    const scan = await scanExport(bufferSource(bytes!), { includeNonPublic: true });
    for await (const p of readExport(bufferSource(bytes!), { format: scan.layout.format, includeNonPublic: true, ownUserId: scan.ownUserId }))
      out.push({ format: scan.layout.format, text: p.text });
  }
  return out;
}

/** The gaps between two words of letters (`word word`), where an injection keeps the sentence whole. */
function gaps(text: string): number[] {
  return [...text.matchAll(/(?<=\p{L}) (?=\p{L})/gu)].map((m) => m.index);
}
/** Words of letters only, into which a glued injection goes. */
function plainWords(text: string): Array<[number, number]> {
  return [...text.matchAll(/(?<=^|\s)\p{L}{2,}(?=\s|$)/gu)].map((m) => [m.index, m.index + m[0].length]);
}

/** The text with `injection` written into it as the author's text: between two words, or inside one. */
function inject(text: string, injection: string, glued: string, at: number): string {
  const g = gaps(text);
  const w = plainWords(text);
  let t = g.length ? `${text.slice(0, g[at % g.length])} ${injection} ${text.slice(g[at % g.length]! + 1)}` : `Note ${injection} here: ${text}`;
  if (w.length) {
    // Into a word of the original text: find it again after the first injection moved it.
    const [a, b] = w[(at * 7 + 3) % w.length]!;
    const word = text.slice(a, b);
    const mid = Math.max(1, Math.floor(word.length / 2));
    const shift = g.length && g[at % g.length]! < a ? injection.length + 1 : g.length ? 0 : `Note ${injection} here: `.length;
    t = t.slice(0, a + shift) + word.slice(0, mid) + glued + word.slice(mid) + t.slice(b + shift);
  }
  return t;
}

const FILLER_PHRASES = /(?<![\p{L}\p{N}_.@#/-])(?:kind of|sort of|i think|i guess|to be honest)(?![\p{L}\p{N}_@/-])/giu;
const FILLER_WORDS = new Set(['just', 'really', 'very', 'basically', 'actually', 'literally', 'honestly', 'simply']);
// eslint-disable-next-line no-misleading-character-class -- `▶︎` is ▶ with its text-style selector
const LIST_MARKER = /^\s*(?:[-*•→▶︎✅]|\d+[.)])\s+/gmu;

/**
 * The words a draft that keeps the whole source must carry, lower-cased: every run of non-space
 * characters with only the punctuation around a word trimmed (`<`, `>` and `&` are kept), less
 * what the writer removes on purpose: emoji, filler words, list markers, links, hashtags.
 */
function keptWords(text: string): string[] {
  const noEmoji = clusters(text)
    .map((c) => (isEmoji(c) ? ' ' : c))
    .join('');
  return noEmoji
    .replace(LIST_MARKER, '')
    .replace(FILLER_PHRASES, ' ')
    .split(/\s+/u)
    .map((t) => t.replace(/^[.,;:!?…"“”'‘’()«»[\]{}—–]+|[.,;:!?…"“”'‘’()«»[\]{}—–]+$/gu, '').toLowerCase())
    .filter((t) => t && !FILLER_WORDS.has(t) && !/^https?:\/\//.test(t) && !t.startsWith('#'));
}

/** The source's words the draft lost. */
function lostWords(draft: string, source: string): string[] {
  const have = new Set(keptWords(draft));
  // A word the writer joined to a link it removed (`notes(https://…)`) is checked without it.
  const src = source.replace(/\bhttps?:\/\/[^\s<>"')\]]+/gi, ' ');
  return keptWords(src).filter((w) => !have.has(w));
}

/**
 * The sources of drafts that keep their whole source: the post itself when the writer keeps all
 * of it (its hook and at most three points, in the long-post budget); else the post's sentences,
 * a few at a time, so that every sentence of every post is drafted whole.
 */
function wholeSources(text: string): string[] {
  const all = sentences(prose(text));
  if (all.length <= 4 && [...text].length <= 800) return [text];
  const out: string[] = [];
  let window: string[] = [];
  const flush = () => {
    if (window.length) out.push(window.join('\n'));
    window = [];
  };
  for (const s of all) {
    if (window.length === 4 || [...[...window, s].join('\n')].length > 800) flush();
    window.push(s);
  }
  flush();
  return out;
}

describe("the built-in writer keeps the author's words", () => {
  const draftOf = async (text: string, format = 'x') =>
    (
      await builtinWriter.write(
        {
          source: { ...material(text), platform: format, url: null },
          more: [],
          intent: 'Weekly posts',
          tone: null,
          styleReference: null,
          platform: 'archive',
          parentText: null,
          variation: 0,
        },
        { outbound: null as never },
      )
    ).text;

  it('reads a post as plain text: what follows a `<` stays, and entities stay as written', async () => {
    expect(await draftOf('si<ti全く気づかなかった')).toContain('si<ti全く気づかなかった');
    expect(await draftOf('cout<<-1<<endl;//return 0;を忘れた')).toContain('cout<<-1<<endl;//return 0;を忘れた');
    const script = await draftOf('Never put <script> in a post. It breaks the page for everyone.');
    expect(script).toContain('Never put <script> in a post');
    expect(script).toContain('It breaks the page for everyone');
    // X's archive escapes `&`, `<`, `>`; the importer decoded them once: what is stored is what was written.
    expect(await draftOf('Writing &amp; in HTML gives & and &lt;b&gt; gives <b>')).toContain('Writing &amp; in HTML gives & and &lt;b&gt; gives <b>');
  });

  it('removes emoji as whole grapheme clusters, and nothing else', async () => {
    const draft = await draftOf('ශ්‍රී ලංකා shipped it 👍🏽 then 1️⃣ and 1⃣ and 👩🏽‍💻 and 🇫🇷 — © 2026 Acme™ # 1 done');
    expect(draft).toContain('ශ්‍රී ලංකා shipped it then and and and — © 2026 Acme™ # 1 done');
    expect(stripEmoji('ශ්‍රී 👍🏽 1️⃣ 1⃣ क्‍ष क्‌ष')).toBe('ශ්‍රී क्‍ष क्‌ष');
  });

  it('a draft that keeps the whole source keeps every word of it, over every post of the real exports, with markup written as text', async () => {
    const posts = await realPosts();
    expect(new Set(posts.map((p) => p.format))).toEqual(new Set(['x', 'mastodon', 'linkedin', 'instagram', 'bluesky', 'wordpress']));
    expect(posts.length).toBeGreaterThanOrEqual(200);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WRITTEN_AS_TEXT), fc.constantFrom(...GLUED), fc.nat(), async (injection, glued, at) => {
        for (const [i, p] of posts.entries()) {
          const text = inject(p.text, injection, glued, at + i);
          for (const source of wholeSources(text)) {
            const draft = await draftOf(source, p.format);
            expect({ source, lost: lostWords(draft, source) }).toEqual({ source, lost: [] });
            expect({ source, altered: alteredTokens(draft, [source]) }).toEqual({ source, altered: [] });
          }
        }
      }),
      { numRuns: Number(process.env.FC_RUNS_EXPORTS ?? 12), seed: Number(process.env.FC_SEED ?? 2511) },
    );
  });
});

describe('emoji go as whole grapheme clusters, or not at all', () => {
  /** Graphemes that are not emoji, among them clusters held together by a ZWJ, a ZWNJ or a selector. */
  const TEXT_GRAPHEMES = [
    'a',
    'Z',
    '7',
    'ශ්‍රී', // Sinhala: the ZWJ makes the conjunct
    'ශ්‍ය',
    'क्‍ष', // Devanagari half form with a ZWJ
    'क्‌ष', // and with a ZWNJ
    'क्ष',
    'ন্‍',
    'e\u0301',
    'A\u030A',
    '가',
    '\u1100\u1161',
    'ش\u0651',
    '東',
    '𠀀',
    '©',
    '™',
    '↔',
    '#',
    '*',
    '<',
    '&',
    '>',
    '\u200B',
    '\u00A0',
    '.',
  ];
  const EMOJI = ['👍🏽', '1️⃣', '1⃣', '#️⃣', '👩🏽‍💻', '👨‍👩‍👧‍👦', '🇫🇷', '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}', '❤️', '🚀', '🧵', '☺️'];
  const graphemeOf = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...TEXT_GRAPHEMES) }, { weight: 1, arbitrary: fc.constantFrom(...EMOJI) });
  const LONE = ['🏽', '\u{20E3}'];

  // An emoji written right after a letter joins it when it starts with a modifier (`a🏽` is one
  // cluster, kept whole): those are written as words of their own here.
  const word = fc.oneof(fc.array(graphemeOf, { minLength: 1, maxLength: 4 }), fc.constantFrom(...LONE.map((g) => [g])));

  it('a text of known graphemes loses its emoji and keeps every other grapheme whole', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 12 }), (wordsOf) => {
        const text = wordsOf.map((w) => w.join('')).join(' ');
        const expected = wordsOf
          .map((w) => w.filter((g) => !EMOJI.includes(g) && !LONE.includes(g)).join(''))
          .filter(Boolean)
          .join(' ');
        expect(stripEmoji(text)).toBe(expected.replace(/[ \t]{2,}/g, ' ').trim());
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 300), seed: Number(process.env.FC_SEED ?? 2511) },
    );
  });

  /** What may be removed as an emoji: no letter, no digit but a keycap's, and something shown as an emoji. */
  const removable = (c: string) =>
    !/\p{L}/u.test(c) &&
    (!/\p{N}/u.test(c) || /^[0-9#*]\u{FE0F}?\u{20E3}$/u.test(c)) &&
    /[\p{Extended_Pictographic}\p{Regional_Indicator}\u{20E3}\p{Emoji_Modifier}]/u.test(c);

  it("any text: what stays is the text's own graphemes, whole and in order, and only emoji go", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'grapheme-composite', maxLength: 6 }), graphemeOf), {
          maxLength: 10,
        }),
        (parts) => {
          const text = parts.join(' ');
          const out = stripEmoji(text);
          // Walk the input's clusters: each one is either the output's next piece, or removed (an emoji).
          let rest = out;
          for (const c of clusters(text.trim())) {
            // White space (which a modifier written after it joins) may be collapsed; the rest is compared.
            const body = c.replace(/^\s+/u, '');
            if (body !== c) rest = rest.replace(/^\s+/u, '');
            if (!body) continue;
            if (rest.startsWith(body)) rest = rest.slice(body.length);
            else expect({ removed: body, removable: removable(body) }).toEqual({ removed: body, removable: true });
          }
          expect(rest.trim()).toBe('');
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 500), seed: Number(process.env.FC_SEED ?? 2511) },
    );
  });

  it('through the writer: a sentence of generated graphemes comes out whole but for its emoji', async () => {
    const LETTERS = TEXT_GRAPHEMES.filter((g) => /^[\p{L}\p{M}\p{N}\u200C\u200D]+$/u.test(g));
    const letterWord = fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...LETTERS) }, { weight: 1, arbitrary: fc.constantFrom(...EMOJI) }), {
      minLength: 1,
      maxLength: 4,
    });
    await fc.assert(
      fc.asyncProperty(fc.array(letterWord, { minLength: 3, maxLength: 12 }), async (wordsOf) => {
        const kept = wordsOf.map((w) => w.filter((g) => !EMOJI.includes(g)).join('')).filter(Boolean);
        fc.pre(kept.length > 0);
        const source = wordsOf.map((w) => w.join('')).join(' ');
        const { text: draft } = await builtinWriter.write(
          { source: material(source), more: [], intent: 'posts', tone: null, styleReference: null, platform: 'archive', parentText: null, variation: 0 },
          { outbound: null as never },
        );
        // Only the first letter of the sentence may have changed case.
        expect(draft.toLowerCase()).toContain(kept.join(' ').toLowerCase());
        expect(draft).not.toMatch(/\p{Emoji_Modifier}|\u{20E3}|\u{FE0F}/u);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 200), seed: Number(process.env.FC_SEED ?? 2511) },
    );
  });

  it('a draft cut to its budget never ends inside a grapheme cluster', () => {
    fc.assert(
      fc.property(fc.array(graphemeOf, { minLength: 2, maxLength: 80 }), fc.integer({ min: 2, max: 40 }), (gs, limit) => {
        const text = gs.join('').trim();
        const cut = fitToLimit(text, limit);
        expect([...cut].length).toBeLessThanOrEqual(limit);
        const body = cut.endsWith('…') ? cut.slice(0, -1) : cut;
        // The cut text is a run of whole clusters from the start of the text.
        expect(clusters(text).join('').startsWith(body)).toBe(true);
        expect(clusters(body).every((c, i) => c === clusters(text)[i])).toBe(true);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 300), seed: Number(process.env.FC_SEED ?? 2511) },
    );
  });
});
