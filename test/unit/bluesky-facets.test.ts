// Bluesky rich-text facets: what is detected, and byte offsets in UTF-8 (not UTF-16 code units,
// not code points) — checked by slicing the text's bytes, with emoji, ZWJ sequences, CJK,
// combining marks and RTL before the facets.
import { describe, expect, it } from 'vitest';
import { detectFacets, facetsOf, type Facet } from '../../server/platforms/bluesky/facets.js';

const dids: Record<string, string> = { 'grace.bsky.social': 'did:plc:grace', 'ada.example.com': 'did:web:ada.example.com' };
const facets = (text: string) => facetsOf(text, detectFacets(text), (h) => dids[h] ?? null);
/** The text each facet covers, read from the UTF-8 bytes as the AppView reads it. */
const covered = (text: string, fs: Facet[]) => fs.map((f) => Buffer.from(text, 'utf8').subarray(f.index.byteStart, f.index.byteEnd).toString('utf8'));

describe('bluesky facets', () => {
  it('finds links, mentions and tags with UTF-8 byte offsets after emoji, CJK, combining marks and RTL', () => {
    const text = '👩🏽‍💻 東京で — café\u0301 שלום: read https://blog.example.org/p/1?x=ü, ask @grace.bsky.social #release #東京 🎉';
    const fs = facets(text);
    expect(covered(text, fs)).toEqual(['https://blog.example.org/p/1?x=ü', '@grace.bsky.social', '#release', '#東京']);
    expect(fs.map((f) => f.features[0])).toEqual([
      { $type: 'app.bsky.richtext.facet#link', uri: 'https://blog.example.org/p/1?x=ü' },
      { $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:grace' },
      { $type: 'app.bsky.richtext.facet#tag', tag: 'release' },
      { $type: 'app.bsky.richtext.facet#tag', tag: '東京' },
    ]);
    // The offsets are bytes: the link starts after 4 + 4 + 4 + 4 (the ZWJ emoji) + … bytes, not its UTF-16 index.
    const start = text.indexOf('https://');
    expect(fs[0]!.index.byteStart).toBe(Buffer.byteLength(text.slice(0, start)));
    expect(fs[0]!.index.byteStart).not.toBe(start);
    expect(fs[0]!.index.byteStart).not.toBe([...text.slice(0, start)].length);
  });

  it('links a bare domain with https:// and leaves trailing punctuation out', () => {
    const text = 'Notes (see example.com/docs). Also https://a.example.org/x.';
    const fs = facets(text);
    expect(covered(text, fs)).toEqual(['example.com/docs', 'https://a.example.org/x']);
    expect(fs[0]!.features[0]).toEqual({ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/docs' });
  });

  it('skips a mention that does not resolve, an email address, a number tag, and tags inside a URL', () => {
    const text = 'Hi @nobody.bsky.social and @ada.example.com, mail ada@example.com #1 #2026 https://x.example.com/#frag #ok';
    const fs = facets(text);
    expect(covered(text, fs)).toEqual(['@ada.example.com', 'https://x.example.com/#frag', '#ok']);
    expect(fs[0]!.features[0]).toEqual({ $type: 'app.bsky.richtext.facet#mention', did: 'did:web:ada.example.com' });
  });

  it('finds nothing in plain text', () => {
    expect(facets('Plain words, v1.2 and 3.5 stars; no links 🌍.')).toEqual([]);
  });

  it('never overlaps, and every range is on character boundaries (many mixed texts)', () => {
    const bits = [
      '🇫🇷',
      '東京',
      'e\u0301',
      'مرحبا',
      '#tag',
      '@grace.bsky.social',
      'https://ex.example.org/a_(b)',
      'example.net',
      '＃全角',
      '👨‍👩‍👧',
      ' ',
      '\n',
      '.',
    ];
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 300; n++) {
      const text = Array.from({ length: 12 }, () => bits[Math.floor(rnd() * bits.length)]).join(rnd() < 0.7 ? ' ' : '');
      const fs = facets(text);
      const bytes = Buffer.from(text, 'utf8');
      let last = 0;
      for (const f of fs) {
        expect(f.index.byteStart).toBeGreaterThanOrEqual(last);
        expect(f.index.byteEnd).toBeLessThanOrEqual(bytes.length);
        expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(f.index.byteStart, f.index.byteEnd))).not.toThrow();
        last = f.index.byteEnd;
      }
    }
  });
});

describe('bluesky post length (the adapter counts as the PDS does)', () => {
  it('counts graphemes, not code points, and caps UTF-8 bytes at 3,000', async () => {
    const { blueskyAdapter } = await import('../../server/platforms/bluesky/adapter.js');
    const refuses = blueskyAdapter.refusesText!;
    const family = '👨‍👩‍👧‍👦'; // one grapheme, 7 code points, 25 bytes
    // 100 families + 200 letters: 300 graphemes, 900 code points, 2,700 bytes — fits.
    expect(refuses(family.repeat(100) + 'a'.repeat(200))).toBeNull();
    expect(refuses('e\u0301'.repeat(300))).toBeNull();
    expect(refuses('é'.repeat(301))).toBe("the text counts 301 (graphemes), over bluesky's limit of 300");
    expect(refuses(family.repeat(120))).toBeNull();
    expect(refuses(family.repeat(121))).toBe("the text is 3025 bytes of UTF-8, over bluesky's 3000");
  });
});
