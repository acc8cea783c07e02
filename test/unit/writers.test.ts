// The writers' rules, without a server: the built-in writer rewrites (never copies), keeps the
// facts, fits the platform, follows tone and style, varies with each re-draft and is
// deterministic; the OpenAI-compatible writer's prompt carries the inputs and its answer is cleaned.
import { describe, expect, it } from 'vitest';
import { builtinWriter } from '../../server/writers/builtin.js';
import { answerText, buildMessages } from '../../server/writers/openai.js';
import { fitToLimit, sameWords } from '../../server/writers/text.js';
import type { DraftInput, SourceMaterial } from '../../server/writers/types.js';
import { writerFor } from '../../server/writers/index.js';
import { parseFeed } from '../../server/adapters/rss.js';

const SOURCE: SourceMaterial = {
  text: 'Shipped v2.3 of our importer today. It is 4x faster on large CSV files, because we stream rows instead of loading the whole file into memory. Memory use dropped from 2 GB to 150 MB. Next up: Parquet support. https://example.org/blog/v2-3 #opensource #release',
  url: 'https://mastodon.example/@ada/1',
  platform: 'mastodon',
  decode: null,
  metrics: { likes: 10, reposts: 2, replies: 1, quotes: 0 },
};

const input = (over: Partial<DraftInput> = {}): DraftInput => ({
  source: SOURCE,
  more: [],
  intent: 'Weekly posts about our open-source releases',
  tone: null,
  styleReference: null,
  platform: 'mastodon',
  parentText: null,
  variation: 0,
  ...over,
});

const write = async (over: Partial<DraftInput> = {}) => (await builtinWriter.write(input(over), { outbound: null as never })).text;
const EMOJI = /\p{Extended_Pictographic}/u;

describe('the built-in writer', () => {
  it('rewrites the post instead of copying it, keeping its facts, link and hashtags', async () => {
    const text = await write();
    expect(sameWords(text, SOURCE.text)).toBe(false);
    expect(text).not.toContain(SOURCE.text.slice(0, 80));
    for (const fact of ['4x faster', '2 GB to 150 MB', 'Shipped v2.3']) expect(text).toContain(fact);
    expect(text).toContain('https://example.org/blog/v2-3');
    expect(text).toMatch(/#opensource/);
    expect(text).not.toMatch(/lorem|ipsum/i);
  });

  it('uses the decode: its hook leads the draft', async () => {
    const decode = { hook: 'Memory use dropped from 2 GB to 150 MB.', format: 'announcement', length: 200, hashtags: ['perf'], links: [] };
    const text = await write({ source: { ...SOURCE, decode } });
    expect(text.split('\n')[0]).toContain('Memory use dropped from 2 GB to 150 MB');
    expect(text).toContain('#perf');
  });

  it('is deterministic, and each re-draft takes another angle that differs from its parent', async () => {
    expect(await write()).toBe(await write());
    const texts = [await write()];
    for (let v = 1; v < 4; v++) texts.push(await write({ variation: v, parentText: texts[v - 1]! }));
    expect(new Set(texts).size).toBe(4);
    for (let v = 1; v < 4; v++) expect(sameWords(texts[v]!, texts[v - 1]!)).toBe(false);
  });

  it('never exceeds the platform budget: 300 for Bluesky, 500 for Mastodon', async () => {
    const long: SourceMaterial = {
      ...SOURCE,
      text: Array.from({ length: 30 }, (_, i) => `Point ${i}: we measured ${i * 7} requests per second on the new path.`).join(' '),
    };
    for (const [platform, limit] of [
      ['bluesky', 300],
      ['mastodon', 500],
      ['rss', 1200],
    ] as const) {
      const text = await write({ source: long, platform });
      expect([...text].length).toBeLessThanOrEqual(limit);
      expect(text.length).toBeGreaterThan(100);
    }
  });

  it('follows a style reference: stated rules (no emoji, short sentences, one idea per line) and measured features', async () => {
    const emojiSource = { ...SOURCE, text: `${SOURCE.text} 🚀` };
    const plain = await write({ source: emojiSource, styleReference: 'Short sentences. One idea per line. No emoji.' });
    expect(plain).not.toMatch(EMOJI);
    // the long "because" sentence is split into short ones
    expect(plain).not.toContain('files, because we stream');
    const lines = plain.split('\n').filter(Boolean);
    for (const line of lines) expect(line.split(/[.!?](\s|$)/).filter((x) => x && x.trim()).length).toBeLessThanOrEqual(2);

    const casual = await write({ styleReference: 'we shipped a thing 🎉 and it is fast. the best part is the memory use. more soon.' });
    expect(casual).toContain('🎉');
    // Lower case, except what is not a plain word (CSV, GB, MB, links): the writer never alters a token.
    expect(casual).toContain('shipped v2.3 of our importer today');
    expect(casual).toMatch(/ CSV files/);
    expect(casual).toContain('2 GB to 150 MB');
    expect(casual.replace(/https?:\/\/\S+/g, '').replace(/\b(?:CSV|GB|MB)\b/g, '')).toBe(
      casual
        .replace(/https?:\/\/\S+/g, '')
        .replace(/\b(?:CSV|GB|MB)\b/g, '')
        .toLowerCase(),
    );

    const dashes = await write({ styleReference: 'What we did:\n- cut the build\n- fixed the cache\n- shipped it' });
    expect(dashes).toMatch(/^- /m);
  });

  it('follows the tone: formal has no exclamation and no chatty closing, friendly invites replies', async () => {
    const noLink = { ...SOURCE, text: 'Shipped v2.3 of our importer today. Memory use dropped from 2 GB to 150 MB.' };
    const formal = await write({ source: noLink, tone: 'formal', styleReference: 'Great news!! We did it!!' });
    expect(formal).not.toContain('!');
    const friendly = await write({ source: noLink, tone: 'friendly' });
    expect(friendly).toMatch(/\?\s*$/);
    const excited = await write({ source: noLink, tone: 'enthusiastic' });
    expect(excited.split('\n')[0]).toMatch(/!$/);
  });

  it('writes a brief that connects every source', async () => {
    const more: SourceMaterial[] = [
      { ...SOURCE, text: 'We moved CI to self-hosted runners. Builds take 6 minutes instead of 20.' },
      { ...SOURCE, text: 'The docs have a search box now.' },
    ];
    const text = await write({ more });
    expect(text).toMatch(/3 posts|Roundup|these 3 posts|Recap/);
    for (const piece of ['Shipped v2.3', 'self-hosted runners', 'search box']) expect(text).toContain(piece);
  });

  it('drafts a feed item from the text its adapter read out of the HTML, once, and shares the article address', async () => {
    // The feed's HTML is read at ingest (the adapter's one HTML→text); the writer gets that text.
    const xml =
      '<rss version="2.0"><channel><title>Blog</title><item><title>Why we rewrote the parser</title><link>https://blog.example/parser</link>' +
      '<description>&lt;p&gt;The old parser was a &lt;b&gt;regex soup&lt;/b&gt;. Error messages now point to the exact column, as in &lt;code&gt;a &amp;amp;lt; b&lt;/code&gt;.&lt;/p&gt;</description></item></channel></rss>';
    const [stored] = parseFeed(xml, new Date()).posts;
    expect(stored!.text).toBe('Why we rewrote the parser\n\nThe old parser was a regex soup. Error messages now point to the exact column, as in a &lt; b.');
    const item: SourceMaterial = { ...SOURCE, platform: 'rss', url: 'https://blog.example/parser', text: stored!.text };
    const text = await write({ source: item, platform: 'rss' });
    expect(text).not.toMatch(/<\/?[a-z]+>/);
    expect(text).toContain('regex soup');
    // What the author's HTML showed as text (`a &lt; b`) is what the draft says: not decoded a second time.
    expect(text).toContain('a &lt; b');
    expect(text).toContain('https://blog.example/parser');
  });

  it('still writes something useful from a post with no words', async () => {
    const text = await write({ source: { ...SOURCE, text: 'https://example.org/x #tag' } });
    expect(text).toContain('https://mastodon.example/@ada/1');
  });
});

describe('fitting text to a budget', () => {
  it('cuts at a sentence or line end when it can, else at a word with an ellipsis', () => {
    expect(fitToLimit('One two three. Four five six seven eight.', 20)).toBe('One two three.');
    expect(fitToLimit('abcdefghij klmnopqrstuvwxyz', 15)).toBe('abcdefghij…');
    expect(fitToLimit('short', 10)).toBe('short');
  });
});

describe('the OpenAI-compatible writer', () => {
  it('is chosen only when a provider is configured', () => {
    expect(writerFor({ llm: null }).name).toBe('builtin');
    expect(writerFor({ llm: { baseUrl: 'https://llm.example/v1', apiKey: null, model: 'm' } }).name).toBe('openai');
  });

  it('puts intent, tone, style, platform budget, sources and the parent into the prompt', () => {
    const msgs = buildMessages(
      input({
        tone: 'dry',
        styleReference: 'Short. Sharp.',
        parentText: 'An earlier draft.',
        platform: 'bluesky',
        more: [{ ...SOURCE, text: 'Second post.' }],
      }),
    );
    const all = msgs.map((m) => m.content).join('\n');
    for (const piece of [
      'Weekly posts about our open-source releases',
      'Tone: dry',
      'Short. Sharp.',
      'At most 300 characters',
      'Source post 1',
      'Second post.',
      'An earlier draft.',
      'brief',
    ]) {
      expect(all).toContain(piece);
    }
    expect(msgs[0]!.role).toBe('system');
  });

  it('takes the first choice without reasoning blocks or wrapping quotes', () => {
    expect(answerText({ choices: [{ message: { content: '<think>hmm</think>\n"The post."' } }] })).toBe('The post.');
    expect(answerText({ choices: [] })).toBe('');
    expect(answerText({})).toBe('');
  });
});
