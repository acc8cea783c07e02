// The platforms' length rules (emoji ZWJ sequences, flags, skin tones, CJK, combining marks,
// astral-plane letters, RTL, URLs, mentions) and thread splitting: unit cases, then properties
// over generated texts (no part over the limit, the text preserved modulo white space, no URL,
// mention, hashtag, word or emoji broken).
import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  adaptText,
  countLength,
  fitsOnePost,
  graphemeCount,
  MAX_PARTS,
  PLATFORM_RULES,
  postProblem,
  splitThread,
  TARGET_PLATFORMS,
  warningOfPart,
  withWarning,
  type TargetPlatform,
} from '../../server/services/platform-text.js';

const FAMILY = '👩‍👩‍👧‍👦'; // 7 code points, 11 UTF-16 units, 25 bytes
const FLAG = '🇫🇷'; // 2 regional indicators
const THUMB_TONE = '👍🏽'; // emoji + skin tone modifier
const E_ACUTE = 'e\u0301'; // e + combining acute
const CJK = '日本語'; // BMP, weight 2 on X
const SCRIPT_A = '𝒜'; // U+1D49C, astral plane letter
const ARABIC = 'مرحبا'; // RTL
const LONG_URL = 'https://example.com/blog/2026/11/importer-v2-3-streaming-archives-instead-of-loading-them-whole?ref=announcement';

describe('counting, the way each platform counts', () => {
  const cases: Array<[string, Record<TargetPlatform, number>]> = [
    ['hello', { bluesky: 5, mastodon: 5, x: 5, linkedin: 5, threads: 5 }],
    [FAMILY, { bluesky: 1, mastodon: 1, x: 2, linkedin: 11, threads: 25 }],
    [FLAG, { bluesky: 1, mastodon: 1, x: 2, linkedin: 4, threads: 8 }],
    [THUMB_TONE, { bluesky: 1, mastodon: 1, x: 2, linkedin: 4, threads: 8 }],
    ['👍', { bluesky: 1, mastodon: 1, x: 2, linkedin: 2, threads: 4 }],
    [E_ACUTE, { bluesky: 1, mastodon: 1, x: 1, linkedin: 2, threads: 2 }], // X counts the NFC form
    [CJK, { bluesky: 3, mastodon: 3, x: 6, linkedin: 3, threads: 3 }],
    [SCRIPT_A, { bluesky: 1, mastodon: 1, x: 2, linkedin: 2, threads: 1 }],
    [ARABIC, { bluesky: 5, mastodon: 5, x: 5, linkedin: 5, threads: 5 }],
  ];
  for (const [text, expected] of cases) {
    it(`counts ${JSON.stringify(text)}`, () => {
      for (const p of TARGET_PLATFORMS) expect([p, countLength(p, text)]).toEqual([p, expected[p]]);
    });
  }

  it('counts every URL as 23 on Mastodon and X, in full elsewhere', () => {
    const text = `Notes: ${LONG_URL}`;
    expect(countLength('mastodon', text)).toBe(7 + 23);
    expect(countLength('x', text)).toBe(7 + 23);
    expect(countLength('mastodon', 'https://a.co')).toBe(23); // short links too
    expect(countLength('bluesky', text)).toBe(7 + LONG_URL.length);
    expect(countLength('linkedin', text)).toBe(7 + LONG_URL.length);
    expect(countLength('threads', text)).toBe(7 + LONG_URL.length);
  });

  it('treats a bare domain as a URL on X only (Mastodon needs the scheme)', () => {
    expect(countLength('x', 'see example.com now')).toBe(4 + 23 + 4);
    expect(countLength('mastodon', 'see example.com now')).toBe(19);
  });

  it('counts a remote mention as its local part on Mastodon, but not an e-mail address', () => {
    expect(countLength('mastodon', 'thanks @ada@fosstodon.org!')).toBe('thanks @ada!'.length);
    expect(countLength('mastodon', 'mail me@example.com')).toBe(19);
    expect(countLength('bluesky', 'thanks @ada@fosstodon.org!')).toBe(26);
  });

  // Mastodon's StatusLengthValidator (app/validators/status_length_validator.rb): grapheme clusters
  // of `spoiler_text + countable_text(text)`, URLs as 23 and remote mentions as their local part;
  // the cases of its own spec (spec/validators/status_length_validator_spec.rb) first.
  describe('Mastodon, as its StatusLengthValidator counts', () => {
    const fits = (text: string, contentWarning?: string) => fitsOnePost('mastodon', text, { contentWarning });
    it("the cases of Mastodon's own spec", () => {
      expect(fits('a'.repeat(500))).toBe(true);
      expect(fits('a'.repeat(501))).toBe(false);
      expect(fits(`http://example.com/valid?${'#foo?'.repeat(1000)}`)).toBe(true); // one URL: 23
      expect(fits(`${'a'.repeat(475)} @alice@${'b'.repeat(30)}.com`)).toBe(true); // the remote part is not counted
      expect(fits('b'.repeat(251), 'a'.repeat(250))).toBe(false); // content warning and text together
      expect(fits('b'.repeat(250), 'a'.repeat(250))).toBe(true);
    });
    it('counts a ZWJ sequence, a flag, a skin tone and a combining mark as one each', () => {
      // The outside review's part: 490 letters and ten family emoji are 500 for Mastodon.
      const part = `${'a'.repeat(490)}${FAMILY.repeat(10)}`;
      expect(countLength('mastodon', part)).toBe(500);
      expect(fits(part)).toBe(true);
      expect(fits(`${part}a`)).toBe(false);
      for (const g of [FAMILY, FLAG, THUMB_TONE, E_ACUTE, '🏳️‍🌈', 'ก\u0e33', 'क्षि']) {
        expect([g, countLength('mastodon', g.repeat(500))]).toEqual([g, 500]);
        expect([g, fits(g.repeat(500))]).toEqual([g, true]);
        expect([g, fits(g.repeat(501))]).toEqual([g, false]);
      }
    });
    it("counts the content warning as written (its URLs in full), the text's URLs and mentions as Mastodon does", () => {
      const cw = `CW: ${FLAG} spoilers for https://example.com/a-very-long-path-of-the-finale`;
      const text = `Thoughts ${FAMILY} on ${LONG_URL} with @ada@fosstodon.org`;
      expect(countLength('mastodon', text, { contentWarning: cw })).toBe(
        [...new Intl.Segmenter().segment(cw)].length + 'Thoughts x on '.length + 23 + ' with @ada'.length,
      );
      expect(countLength('mastodon', text, { contentWarning: null })).toBe(countLength('mastodon', text));
      expect(postProblem('mastodon', 'x'.repeat(490), { contentWarning: 'c'.repeat(11) })).toMatch(
        /counts 501 \(graphemes\) with its content warning, over mastodon's limit of 500/,
      );
    });
    it('splits a thread so that the first part, which carries the content warning, fits with it; the replies carry none', () => {
      const text = Array.from({ length: 12 }, (_, i) => `Sentence ${i + 1} of the thread ${FAMILY}, with some words to make it long enough.`).join(' ');
      const cw = 'Spoilers: the finale '.repeat(10);
      const split = splitThread('mastodon', text, { contentWarning: cw, numbered: true });
      if (!split.ok) throw new Error(split.reason);
      expect(split.parts.length).toBeGreaterThan(1);
      split.parts.forEach((p, i) => expect(fits(p, warningOfPart(i, cw) ?? undefined)).toBe(true));
      expect(fits(split.parts[0]!, cw)).toBe(true);
      // The first part leaves room for the warning; the second, posted without it, does not need to.
      expect(countLength('mastodon', split.parts[0]!)).toBeLessThanOrEqual(500 - graphemeCount(cw));
      expect(countLength('mastodon', split.parts[1]!)).toBeGreaterThan(500 - graphemeCount(cw));
      expect([warningOfPart(0, cw), warningOfPart(1, cw), warningOfPart(0, null)]).toEqual([cw, null, null]);
    });
  });

  // Bluesky has no content warning: publishing opens the first post with `CW: <warning>` and an
  // empty line (withWarning), which the PDS counts with the text.
  describe('Bluesky, with the CW line it posts', () => {
    const cw = 'Spoilers: season 4 finale';
    it('counts the line in the 300 graphemes and the 3,000 bytes', () => {
      const text = 'b'.repeat(290);
      expect(countLength('bluesky', text, { contentWarning: cw })).toBe(graphemeCount(withWarning(text, cw)));
      expect(countLength('bluesky', text, { contentWarning: cw })).toBe(290 + 'CW: \n\n'.length + cw.length);
      expect(postProblem('bluesky', text)).toBeNull();
      expect(postProblem('bluesky', text, { contentWarning: cw })).toBe(`counts ${290 + 31} (graphemes) with its content warning, over bluesky's limit of 300`);
      // Emoji families: few graphemes, many bytes; the line tips the text over 3,000 bytes.
      const families = FAMILY.repeat(Math.floor(2990 / Buffer.byteLength(FAMILY)));
      expect(postProblem('bluesky', families)).toBeNull();
      expect(postProblem('bluesky', families, { contentWarning: cw })).toMatch(/^is 30\d\d bytes of UTF-8 with its content warning, over bluesky's 3000$/);
    });
    it('splits so that the first part fits under the line', () => {
      const text = Array.from({ length: 8 }, (_, i) => `Sentence ${i + 1} of the thread, with some words to make it long enough.`).join(' ');
      const split = splitThread('bluesky', text, { contentWarning: cw });
      if (!split.ok) throw new Error(split.reason);
      expect(graphemeCount(withWarning(split.parts[0]!, cw))).toBeLessThanOrEqual(300);
      for (const p of split.parts.slice(1)) expect(graphemeCount(p)).toBeLessThanOrEqual(300);
    });
    it('counts no warning on the platforms that post none', () => {
      for (const p of ['x', 'linkedin', 'threads'] as const) expect(countLength(p, 'hello', { contentWarning: cw })).toBe(countLength(p, 'hello'));
    });
  });

  it('has the documented limits', () => {
    expect(Object.fromEntries(TARGET_PLATFORMS.map((p) => [p, PLATFORM_RULES[p].limit]))).toEqual({
      mastodon: 500,
      bluesky: 300,
      x: 280,
      linkedin: 3000,
      threads: 500,
    });
    expect(TARGET_PLATFORMS.filter((p) => PLATFORM_RULES[p].publishable)).toEqual(['mastodon', 'bluesky', 'x', 'linkedin', 'threads']);
  });

  it('fits exactly at the limit and not one past it', () => {
    for (const p of TARGET_PLATFORMS) {
      const limit = PLATFORM_RULES[p].limit;
      expect(fitsOnePost(p, 'a'.repeat(limit))).toBe(true);
      expect(fitsOnePost(p, 'a'.repeat(limit + 1))).toBe(false);
    }
    // 300 family emoji are 300 graphemes on Bluesky but 600 weighted on X.
    expect(fitsOnePost('bluesky', FAMILY.repeat(300))).toBe(false); // 7,500 bytes: over the 3,000-byte cap
    expect(fitsOnePost('bluesky', THUMB_TONE.repeat(300))).toBe(true); // 2,400 bytes
    expect(fitsOnePost('x', THUMB_TONE.repeat(140))).toBe(true);
    expect(fitsOnePost('x', THUMB_TONE.repeat(141))).toBe(false);
  });

  it('enforces Bluesky’s byte cap and Threads’ five links', () => {
    const zalgo = `e${'\u0301'.repeat(20)}`; // one grapheme, 41 bytes
    expect(countLength('bluesky', zalgo.repeat(100))).toBe(100);
    expect(postProblem('bluesky', zalgo.repeat(100))).toMatch(/bytes of UTF-8, over bluesky's 3000/);
    const links = (n: number) => Array.from({ length: n }, (_, i) => `https://example.com/${i}`).join(' ');
    expect(fitsOnePost('threads', links(5))).toBe(true);
    expect(postProblem('threads', links(6))).toBe("has 6 links, over threads's 5 per post");
  });
});

describe('adaptText', () => {
  const text = 'Shipped v2.3 with #streaming imports.\r\n\r\n\r\n\r\nNotes below.\n\n#release #opensource #performance #importer';
  it('trims the trailing hashtag block to the platform’s norm, keeps inline hashtags, normalises line breaks', () => {
    expect(adaptText('x', text)).toBe('Shipped v2.3 with #streaming imports.\n\nNotes below.\n\n#release #opensource');
    expect(adaptText('threads', text)).toBe('Shipped v2.3 with #streaming imports.\n\nNotes below.\n\n#release');
    expect(adaptText('linkedin', text)).toBe('Shipped v2.3 with #streaming imports.\n\nNotes below.\n\n#release #opensource #performance');
    expect(adaptText('mastodon', text)).toBe('Shipped v2.3 with #streaming imports.\n\nNotes below.\n\n#release #opensource #performance #importer');
    expect(adaptText('bluesky', '#a #b #c #d')).toBe('#a #b #c #d');
  });
});

const paragraph = (n: number, words = 'the importer streams rows instead of loading whole files') =>
  Array.from({ length: n }, (_, i) => `Sentence ${i + 1}: ${words}.`).join(' ');

describe('splitThread', () => {
  it('keeps a text that fits as one part, even when numbering is asked for', () => {
    expect(splitThread('x', '  Short post.  ', { numbered: true })).toEqual({ ok: true, parts: ['Short post.'] });
  });

  it('cuts at paragraphs first', () => {
    const a = paragraph(3);
    const b = paragraph(3, 'memory use fell from two gigabytes to one hundred and fifty');
    const r = splitThread('bluesky', `${a}\n\n${b}`);
    expect(r).toEqual({ ok: true, parts: [a, b] });
  });

  it('cuts at sentence ends inside a long paragraph, each part as full as a sentence end allows', () => {
    const text = paragraph(12);
    const r = splitThread('x', text);
    if (!r.ok) throw new Error(r.reason);
    expect(r.parts.length).toBeGreaterThan(1);
    for (const p of r.parts) {
      expect(p).toMatch(/\.$/);
      expect(countLength('x', p)).toBeLessThanOrEqual(280);
    }
    expect(r.parts.join(' ')).toBe(text);
  });

  it('falls back to word boundaries for a sentence longer than a post, never inside a word', () => {
    const words = Array.from({ length: 120 }, (_, i) => `word${i}`);
    const r = splitThread('bluesky', words.join(' '));
    if (!r.ok) throw new Error(r.reason);
    expect(r.parts.join(' ').split(' ')).toEqual(words);
  });

  it('cuts Japanese (no spaces) between words, never before a closing mark', () => {
    const sentence = '日本語のユーザーからも報告がありました、大きなファイルでも速くなりました';
    const text = Array.from({ length: 12 }, () => sentence).join('。') + '。';
    const r = splitThread('x', text);
    if (!r.ok) throw new Error(r.reason);
    expect(r.parts.length).toBeGreaterThan(1);
    expect(r.parts.join('')).toBe(text);
    for (const p of r.parts) {
      expect(countLength('x', p)).toBeLessThanOrEqual(280);
      expect(p).not.toMatch(/^[。、」]/u);
    }
  });

  it('numbers a thread with " i/n" inside the limit, widening the reserve past nine parts', () => {
    const text = paragraph(40);
    const r = splitThread('x', text, { numbered: true });
    if (!r.ok) throw new Error(r.reason);
    expect(r.parts.length).toBeGreaterThan(9);
    r.parts.forEach((p, i) => {
      expect(p.endsWith(` ${i + 1}/${r.parts.length}`)).toBe(true);
      expect(countLength('x', p)).toBeLessThanOrEqual(280);
    });
  });

  it('does not cut inside a hashtag or mention written in Japanese, where word boundaries are otherwise places to cut', () => {
    const tag = '#大きなファイルでも速くなりました';
    const r = splitThread('x', `${'a'.repeat(270)} ${tag}`);
    expect(r).toEqual({ ok: true, parts: ['a'.repeat(270), tag] });
    const glued = `${'a'.repeat(262)} 報告は@ada@fosstodon.orgさんから`;
    const g = splitThread('x', glued);
    if (!g.ok) throw new Error(g.reason);
    expect(g.parts).toEqual([`${'a'.repeat(262)} 報告`, 'は@ada@fosstodon.orgさんから']); // cut between Japanese words, not in the mention
  });

  it('does not cut at a no-break space', () => {
    // Were the no-break space a place to cut, the first part would take "b" too (297 fits).
    const text = `${'a'.repeat(295)} b\u00a0${'c'.repeat(10)}`;
    const r = splitThread('bluesky', text);
    if (!r.ok) throw new Error(r.reason);
    expect(r.parts).toEqual(['a'.repeat(295), `b\u00a0${'c'.repeat(10)}`]);
  });

  it('refuses, naming the token, when one URL, mention, hashtag or word alone does not fit', () => {
    const url = `https://example.com/${'segment/'.repeat(40)}`;
    const r = splitThread('bluesky', `Read ${url} today.`);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.reason).toMatch(
        /^"https:\/\/example\.com\/segment\/segment.*\.\.\." cannot be split and alone counts 340 \(graphemes\), over bluesky's limit of 300$/,
      );
    // The same URL is 23 on X: no refusal there.
    expect(splitThread('x', `Read ${url} today.`)).toEqual({ ok: true, parts: [`Read ${url} today.`] });
    const word = 'Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz'.repeat(5);
    expect(splitThread('x', `${word} ok`).ok).toBe(false);
    expect(splitThread('x', '').ok).toBe(false);
  });

  it('refuses a text that needs more than the maximum number of parts', () => {
    const r = splitThread('x', paragraph(40 * (MAX_PARTS / 10)));
    expect(r).toEqual({ ok: false, reason: `the text needs more than ${MAX_PARTS} posts on x` });
  });
});

// ---- properties ----

const latinWord = fc.constantFrom(
  'importer',
  'faster',
  'café',
  `r${E_ACUTE}sum${E_ACUTE}`,
  'naïve',
  'streaming',
  'Mémoire',
  'über',
  'don’t',
  'v2.3',
  '4x',
  '150',
  ARABIC,
  'שלום',
  SCRIPT_A + 'lpha',
  'Ελληνικά',
);
const emoji = fc.constantFrom(FAMILY, FLAG, THUMB_TONE, '🎉', '❤️', '🧑🏿‍💻', '🏳️‍🌈');
const url = fc
  .tuple(
    fc.constantFrom('https://', 'http://'),
    fc.constantFrom('example.com', 'docs.example.org', 'xn--bcher-kva.example'),
    fc.array(fc.constantFrom('blog', '2026', 'v2-3', 'a_b', 'index.html', '%E6%97%A5'), { maxLength: 6 }),
    fc.constantFrom('', '?ref=x&utm=y', '#part-2'),
  )
  .map(([s, host, path, q]) => `${s}${host}/${path.join('/')}${q}`);
const mention = fc.constantFrom('@ada@fosstodon.org', '@lin.bsky.social', '@bob', '@Mia_K@mastodon.example');
const hashtag = fc.constantFrom('#release', '#opensource', '#日本語', '#大きなファイルでも速くなりました', '#café', '#v2_3', '#Ελληνικά');
const cjkRun = fc.constantFrom('日本語のテキスト', '大きなファイルでも速くなりました', '报告', '한국어 문장', 'ありがとうございます');
// A piece of text and the substrings of it that must come out whole in some part (a CJK run may
// be cut between its words; a URL, mention or hashtag glued to CJK text may not be cut).
type Piece = { text: string; atoms: string[] };
const whole = (text: string): Piece => ({ text, atoms: [text] });
const piece: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 8, arbitrary: latinWord.map(whole) },
  { weight: 2, arbitrary: fc.tuple(latinWord, fc.constantFrom('.', '!', '?', ',', ':')).map(([w, p]) => whole(w + p)) },
  { weight: 2, arbitrary: emoji.map(whole) },
  { weight: 1, arbitrary: url.map(whole) },
  { weight: 1, arbitrary: mention.map(whole) },
  { weight: 1, arbitrary: hashtag.map(whole) },
  { weight: 1, arbitrary: cjkRun.map((text) => ({ text, atoms: [] })) },
  // Glued to Japanese on both sides, where word boundaries are places to cut.
  { weight: 1, arbitrary: fc.tuple(cjkRun, fc.oneof(url, mention, hashtag), cjkRun).map(([a, t, b]) => ({ text: `${a}${t} ${b}`, atoms: [t] })) },
);
const separator = fc.constantFrom(' ', ' ', ' ', ' ', '  ', '\n', '\n\n', '\t');
const document = fc.array(fc.tuple(piece, separator), { minLength: 1, maxLength: 400 }).map((pairs) => ({
  pieces: pairs.map(([p]) => p),
  text: pairs.map(([p, s]) => p.text + s).join(''),
}));

const stripNumber = (p: string) => p.replace(/ \d+\/\d+$/, '');
const noSpace = (s: string) => s.replace(/\s+/gu, '');

describe('splitThread properties', () => {
  for (const platform of TARGET_PLATFORMS) {
    it(`${platform}: no part over the limit, the text kept modulo white space, nothing broken`, () => {
      fc.assert(
        fc.property(document, fc.boolean(), ({ pieces, text }, numbered) => {
          const r = splitThread(platform, text, { numbered });
          if (!r.ok) {
            // Only a text needing more than MAX_PARTS posts may be refused: every token here fits.
            expect(r.reason).toContain(`more than ${MAX_PARTS}`);
            return;
          }
          for (const p of r.parts) {
            expect(postProblem(platform, p)).toBeNull();
            expect(p.trim()).not.toBe('');
          }
          const bare = r.parts.length > 1 && numbered ? r.parts.map(stripNumber) : r.parts;
          if (r.parts.length > 1 && numbered) r.parts.forEach((p, i) => expect(p.endsWith(` ${i + 1}/${r.parts.length}`)).toBe(true));
          expect(noSpace(bare.join(''))).toBe(noSpace(text));
          for (const token of pieces.flatMap((x) => x.atoms)) expect(bare.some((p) => p.includes(token))).toBe(true);
        }),
        { numRuns: platform === 'linkedin' ? 60 : 150 },
      );
    });
  }
});

describe('the contract’s examples', () => {
  it('count every variant example the way the library does', async () => {
    const spec = JSON.parse(await readFile(new URL('../../generated/openapi.json', import.meta.url), 'utf8')) as unknown;
    const variants: Array<Record<string, unknown>> = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        const o = node as Record<string, unknown>;
        if (typeof o.counting === 'string' && Array.isArray(o.parts) && typeof o.platform === 'string') variants.push(o);
        Object.values(o).forEach(walk);
      }
    };
    walk(spec);
    expect(variants.length).toBeGreaterThanOrEqual(6);
    for (const v of variants) {
      const platform = v.platform as TargetPlatform;
      const parts = v.parts as Array<{ text: string; length: number }>;
      expect(v).toMatchObject({
        limit: PLATFORM_RULES[platform].limit,
        counting: PLATFORM_RULES[platform].counting,
        publishable: PLATFORM_RULES[platform].publishable,
      });
      expect([platform, v.length]).toEqual([platform, countLength(platform, v.text as string)]);
      expect(v.fits_one_post).toBe(fitsOnePost(platform, v.text as string));
      expect(v.is_thread).toBe(parts.length > 1);
      for (const p of parts) expect([platform, p.text, p.length]).toEqual([platform, p.text, countLength(platform, p.text)]);
      if (v.origin !== 'parts')
        expect(parts.map((p) => p.text)).toEqual((splitThread(platform, v.text as string, { numbered: v.numbered as boolean }) as { parts: string[] }).parts);
    }
  });
});
