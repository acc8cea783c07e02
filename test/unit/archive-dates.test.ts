// Every export reader checks a post's date where it parses it (issue 30): a date that is missing,
// unreadable or outside the years 0001–9999 keeps the post, its words as written, dated at the
// import (`now`) with the date as written in `unreadDate`; a date read is kept as it is. The
// Mastodon outbox and the Bluesky CAR go through the API in test/integration/import-dates.test.ts.
import { describe, expect, it } from 'vitest';
import { instagramItem } from '../../server/adapters/archive/instagram.js';
import { linkedInItem } from '../../server/adapters/archive/linkedin.js';
import { mastodonItem } from '../../server/adapters/archive/mastodon.js';
import type { ArchiveItem } from '../../server/adapters/archive/types.js';
import { wordpressItem, type WxrItem } from '../../server/adapters/archive/wordpress.js';
import { xItem, type XContext } from '../../server/adapters/archive/x.js';

const now = new Date('2026-11-27T12:00:00.000Z');
const opts = { includeNonPublic: false, ownUserId: null, now };

/** The post of an item, which must be one. */
function postOf(item: ArchiveItem | null) {
  expect(item?.skip).toBeUndefined();
  return item!.post!;
}

const xContext = (protectedSpans: Array<[number, number]> = []): XContext => ({
  ownUserId: '1',
  username: 'ada',
  notes: new Map(),
  notesByStart: new Map(),
  protectedSpans,
  entries: new Set(),
  root: '',
});
const tweet = (created_at: unknown) => ({ tweet: { id_str: '1700', full_text: 'cout<<-1<<endl; & more', created_at } });

const wxr = (postDateGmt: string, pubDate: string): WxrItem => ({
  title: 'A title',
  link: 'https://blog.example/a',
  guid: 'https://blog.example/?p=1',
  pubDate,
  content: '<p>Words.</p>',
  postId: '1',
  postDateGmt,
  status: 'publish',
  postType: 'post',
  password: '',
  categories: [],
  approvedComments: 0,
});

const mastodonCreate = (published: unknown) => ({
  type: 'Create',
  actor: 'https://mastodon.example/users/ada',
  to: ['https://www.w3.org/ns/activitystreams#Public'],
  object: {
    id: 'https://mastodon.example/users/ada/statuses/1',
    type: 'Note',
    content: '<p>Hello</p>',
    published,
    to: ['https://www.w3.org/ns/activitystreams#Public'],
  },
});

const ODD = ['+275760-09-13T00:00:00Z', '+010000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z', '0000-06-01T00:00:00Z', 'sometime in May', ''];

describe('a post whose date cannot be read or is outside the years 0001-9999', () => {
  it('X: kept, flagged, its text as written', () => {
    for (const odd of [...ODD, 'Sat Jan 01 00:00:00 +0000 10000']) {
      const p = postOf(xItem(tweet(odd), xContext(), opts));
      expect(p).toMatchObject({ publishedAt: now, unreadDate: odd, text: 'cout<<-1<<endl; & more', visibility: 'public' });
    }
    expect(postOf(xItem(tweet(undefined), xContext(), opts)).unreadDate).toBe('');
    const read = postOf(xItem(tweet('Wed Oct 10 20:19:24 +0000 2018'), xContext(), opts));
    expect(read).toMatchObject({ publishedAt: new Date('2018-10-10T20:19:24Z'), unreadDate: null });
    // An account protected for a while: a post of unknown date may have been for followers only.
    expect(xItem(tweet(ODD[0]), xContext([[0, 1]]), opts)).toEqual({ skip: 'followers_only' });
    expect(postOf(xItem(tweet(ODD[0]), xContext([[0, 1]]), { ...opts, includeNonPublic: true })).visibility).toBe('followers');
  });

  it('Mastodon: kept, flagged', () => {
    for (const odd of ODD)
      expect(postOf(mastodonItem(mastodonCreate(odd), opts, new Set(), ''))).toMatchObject({ publishedAt: now, unreadDate: odd, text: 'Hello' });
    expect(postOf(mastodonItem(mastodonCreate('2024-04-01T08:00:00Z'), opts, new Set(), '')).unreadDate).toBeNull();
  });

  it('LinkedIn: kept, flagged', () => {
    for (const odd of [...ODD, '10000-01-01 00:00:00'])
      expect(postOf(linkedInItem({ ShareCommentary: 'Words', Date: odd }, opts))).toMatchObject({ publishedAt: now, unreadDate: odd.trim(), text: 'Words' });
    expect(postOf(linkedInItem({ ShareCommentary: 'Words', Date: '2024-03-01 10:00:00' }, opts))).toMatchObject({
      publishedAt: new Date('2024-03-01T10:00:00Z'),
      unreadDate: null,
    });
  });

  it('WordPress: kept, flagged with the date as written', () => {
    const p = postOf(wordpressItem(wxr('0000-00-00 00:00:00', 'Sat, 01 Jan 10000 00:00:00 +0000'), opts));
    expect(p).toMatchObject({ publishedAt: now, unreadDate: 'Sat, 01 Jan 10000 00:00:00 +0000' });
    expect(p.text).toContain('Words.');
    expect(postOf(wordpressItem(wxr('2024-03-01 10:00:00', ''), opts))).toMatchObject({ publishedAt: new Date('2024-03-01T10:00:00Z'), unreadDate: null });
  });

  it('Instagram: a creation time past the year 9999 is kept, flagged', () => {
    const ctx = { visibility: 'public' as const, entries: new Set<string>(), root: '' };
    const entry = (creation_timestamp: unknown) => ({ title: 'A caption', creation_timestamp, media: [{ uri: 'media/posts/1.jpg' }] });
    expect(postOf(instagramItem(entry(1e15), ctx, opts))).toMatchObject({ publishedAt: now, unreadDate: '1000000000000000', text: 'A caption' });
    expect(postOf(instagramItem(entry('soon'), ctx, opts))).toMatchObject({ publishedAt: now, unreadDate: 'soon' });
    expect(postOf(instagramItem(entry(1_700_000_000), ctx, opts))).toMatchObject({ publishedAt: new Date(1_700_000_000_000), unreadDate: null });
  });
});
