// Decode (the structure of a post) and pattern detection: deterministic analysis, no network.
import { describe, expect, it } from 'vitest';
import { decodeText, hookKind } from '../../server/services/decode.js';
import { bestPerforming, detectPatterns, type RankedPost } from '../../server/services/patterns.js';

describe('decode', () => {
  it('finds hook, format, length, hashtags and links', () => {
    const d = decodeText('Shipped v2.3 today: the importer is 4x faster. #Release #rust\nhttps://github.com/ada/importer/releases, read it!');
    expect(d).toEqual({
      hook: 'Shipped v2.3 today: the importer is 4x faster.',
      format: 'announcement',
      length: 112,
      hashtags: ['release', 'rust'],
      links: ['https://github.com/ada/importer/releases'],
    });
  });

  it.each([
    ['A thread on caching 🧵\n1/ start here', 'thread'],
    ['Three habits:\n- write\n- ship\n- rest', 'list'],
    ['Why are builds slow?\nLet me count the ways, at length.', 'question'],
    ['Worth reading https://example.com/post', 'link_share'],
    ['ok', 'short_take'],
    ['x'.repeat(1200), 'long_form'],
    ['A plain observation about software. '.repeat(6), 'statement'],
  ])('classifies %j as %s', (text, format) => {
    expect(decodeText(text).format).toBe(format);
  });

  it('keeps a long first line to its first sentence, and is deterministic', () => {
    const text = `This first sentence is long enough to be a hook. ${'Then it goes on and on. '.repeat(20)}`;
    expect(decodeText(text).hook).toBe('This first sentence is long enough to be a hook.');
    expect(decodeText(text)).toEqual(decodeText(text));
  });

  it('names how a hook opens', () => {
    expect(hookKind('5 lessons from on-call')).toBe('number');
    expect(hookKind('How we cut CI time')).toBe('how_why');
    expect(hookKind('We moved to Postgres')).toBe('personal');
    expect(hookKind('Stop writing YAML')).toBe('imperative');
    expect(hookKind('Is it worth it?')).toBe('question');
    expect(hookKind('The cache was wrong')).toBe('statement');
  });
});

const post = (id: string, likes: number, text: string, day = 1): RankedPost => ({
  id,
  publishedAt: new Date(Date.UTC(2026, 9, day)),
  likes,
  reposts: 0,
  replies: 0,
  quotes: 0,
  decode: decodeText(text),
});

describe('patterns', () => {
  const posts = [
    post('a', 100, 'Why is X slow? #perf', 1),
    post('b', 90, 'Why does Y leak? #perf', 2),
    post('c', 80, 'Why do we still do Z? #perf https://ada.example/z', 3),
    post('d', 70, 'Why not W? https://ada.example/w', 4),
    ...Array.from({ length: 12 }, (_, i) =>
      post(`low${i}`, 1, `Low post ${i}: a plain statement about nothing much at all, long enough to be medium sized text for sure.`, 5 + i),
    ),
  ];

  it('looks at the best quarter by engagement', () => {
    expect(bestPerforming(posts).map((p) => p.id)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('finds what most of the best posts share, and not what the weak ones share', () => {
    const found = detectPatterns(posts);
    const byKey = Object.fromEntries(found.map((p) => [`${p.kind}:${p.key}`, p]));
    expect(byKey['format:question']).toMatchObject({ occurrences: 4, description: '4 of the 4 best-performing posts are questions' });
    expect(byKey['hook:question']?.occurrences).toBe(4);
    expect(byKey['hashtag:perf']?.occurrences).toBe(3);
    expect(byKey['link_domain:ada.example']?.occurrences).toBe(2);
    expect(byKey['format:statement']).toBeUndefined();
  });

  it('needs at least two posts sharing a trait', () => {
    expect(detectPatterns([post('solo', 5, 'Only one #lonely')])).toEqual([]);
  });
});
