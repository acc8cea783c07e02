// Adapter parsing without the network: feeds (RSS 2.0, Atom, RDF), the three archive formats,
// HTML to text, and the Bluesky record key.
import { describe, expect, it } from 'vitest';
import { archiveAdapter } from '../../server/adapters/archive/adapter.js';
import { tidFor, withWarning } from '../../server/platforms/bluesky/adapter.js';
import { parseFeed } from '../../server/adapters/rss.js';
import { htmlToText } from '../../server/adapters/text.js';
import { AdapterError } from '../../server/adapters/types.js';
import { archiveFixture } from '../support/api.js';

const NOW = new Date('2026-11-22T10:00:00.000Z');

describe('feeds', () => {
  it('reads Atom entries with their alternate link, content and thr:total', () => {
    const xml = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:thr="http://purl.org/syndication/thread/1.0">
      <title>Ada</title>
      <entry><id>tag:ada,2026:1</id><title>First</title><link rel="self" href="https://ada.example/self/1"/><link rel="alternate" href="https://ada.example/1"/>
        <published>2026-11-01T10:00:00Z</published><content type="html">&lt;p&gt;Hello &amp;amp; welcome&lt;/p&gt;</content><thr:total>4</thr:total></entry>
      <entry><id>tag:ada,2026:2</id><title>Second</title><link href="https://ada.example/2"/><updated>2026-11-02T10:00:00Z</updated><summary>Just a summary</summary></entry>
    </feed>`;
    const { title, posts } = parseFeed(xml, NOW);
    expect(title).toBe('Ada');
    expect(posts).toEqual([
      {
        externalId: 'tag:ada,2026:1',
        url: 'https://ada.example/1',
        text: 'First\n\nHello & welcome',
        publishedAt: new Date('2026-11-01T10:00:00Z'),
        unreadDate: null,
        metrics: { likes: 0, reposts: 0, replies: 4, quotes: 0 },
        media: [],
      },
      {
        externalId: 'tag:ada,2026:2',
        url: 'https://ada.example/2',
        text: 'Second\n\nJust a summary',
        publishedAt: new Date('2026-11-02T10:00:00Z'),
        unreadDate: null,
        metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0 },
        media: [],
      },
    ]);
  });

  it('reads RSS 1.0 (RDF) items, uses the link when there is no guid, and "now" when there is no date', () => {
    const xml = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
      <channel><title>Old school</title></channel>
      <item><title>Dated</title><link>https://old.example/a</link><description>Body</description><dc:date>2026-10-01T00:00:00Z</dc:date></item>
      <item><title>Undated</title><link>https://old.example/b</link></item>
    </rdf:RDF>`;
    const { posts } = parseFeed(xml, NOW);
    expect(posts.map((p) => [p.externalId, p.publishedAt.toISOString(), p.text])).toEqual([
      ['https://old.example/a', '2026-10-01T00:00:00.000Z', 'Dated\n\nBody'],
      ['https://old.example/b', NOW.toISOString(), 'Undated'],
    ]);
  });

  it('does not repeat a title that the body already starts with (microblog feeds)', () => {
    const xml = `<rss version="2.0"><channel><title>m</title><item><guid>1</guid><title>Shipping today</title><description>&lt;p&gt;Shipping today: v2&lt;/p&gt;</description></item></channel></rss>`;
    expect(parseFeed(xml, NOW).posts[0].text).toBe('Shipping today: v2');
  });

  it('says invalid_input on the handle (not a feed: the address cannot work) for a document that is not a feed', () => {
    for (const doc of ['<html><body>hi</body></html>', 'not xml at all <']) {
      const err = (() => {
        try {
          parseFeed(doc, NOW);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(AdapterError);
      expect(err).toMatchObject({ kind: 'invalid_input', field: 'handle' });
    }
  });
});

describe('archives (the small sample exports, as auth_material)', () => {
  const creds = (name: string, secondary: string | null = null) => ({ secret: archiveFixture(name), secondary });
  const list = (name: string, secondary: string | null = null) =>
    archiveAdapter.listPosts(null as never, 'h', creds(name, secondary), { max: 100 }).then((l) => l.posts);

  it('detects each sample export and reads the own posts only', async () => {
    for (const f of ['x-tweets.js', 'linkedin-Shares.csv', 'mastodon-outbox.json']) {
      expect((await archiveAdapter.probe(null as never, 'h', creds(f))).displayName).toMatch(/^(x|linkedin|mastodon) archive with \d+ posts$/);
    }
    const x = await list('x-tweets.js');
    // Seven tweets: the retweet and the reply are not the author's own posts.
    expect(x).toHaveLength(5);
    expect(x.some((p) => p.text.startsWith('RT @') || p.text.startsWith('@carol'))).toBe(false);
  });

  it('reads quoted multi-line LinkedIn commentary and skips shares without text', async () => {
    const posts = await list('linkedin-Shares.csv', 'linkedin');
    expect(posts).toHaveLength(4);
    expect(posts[0]!.text).toBe(
      'We just released version 2.3 of our open-source importer.\n\nWhat changed:\n- 4x faster on large CSV files\n- half the memory\n- a new streaming API\n\nThank you to the 14 contributors who made it happen. #opensource #dataengineering',
    );
    expect(posts.some((p) => p.text.includes('likes "boring" reliable'))).toBe(true);
  });

  it('refuses an export with no readable post, naming the field', async () => {
    const err = await archiveAdapter.probe(null as never, 'h', { secret: 'window.YTD.tweets.part0 = []', secondary: null }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as AdapterError).kind).toBe('invalid_input');
    expect((err as AdapterError).field).toBe('auth_material');
  });
});

describe('text and keys', () => {
  it('turns HTML into readable text', () => {
    expect(htmlToText('<p>One<br>two</p><ul><li>a</li><li>b</li></ul><p>&lt;three&gt; &amp; four</p><script>x()</script>')).toBe(
      'One\ntwo\n\n- a\n- b\n\n<three> & four',
    );
  });

  it('makes a valid, stable Bluesky record key per artifact', () => {
    const key = { id: 'art_0123456789abcdef', createdAt: new Date('2026-11-22T10:00:00.123Z') };
    const tid = tidFor(key);
    expect(tid).toMatch(/^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/);
    expect(tidFor({ ...key })).toBe(tid);
    expect(tidFor({ ...key, id: 'art_other' })).not.toBe(tid);
    // Later artifacts sort after earlier ones, as record keys must.
    expect(tidFor({ ...key, createdAt: new Date('2026-11-22T10:00:01Z') }) > tid).toBe(true);
  });
});

describe('content warnings on Bluesky', () => {
  it('open the text (Bluesky has no content warning), and leave a text without one as it is', () => {
    expect(withWarning('The finale was worth the wait.', 'Spoilers: season 4')).toBe('CW: Spoilers: season 4\n\nThe finale was worth the wait.');
    expect(withWarning('Plain.', null)).toBe('Plain.');
    expect(withWarning('Plain.', '')).toBe('Plain.');
  });
});
