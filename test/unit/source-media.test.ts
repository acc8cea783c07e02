// Media references of source posts, from realistic samples of each platform's answer: type,
// dimensions where known, alt text, and where the bytes are.
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../server/adapters/rss.js';
import { mastodonMedia } from '../../server/platforms/mastodon/adapter.js';
import { blueskyMedia } from '../../server/platforms/bluesky/adapter.js';

const NOW = new Date('2026-11-24T00:00:00Z');

describe('feeds', () => {
  it('reads media:content (alone and in media:group) with alt text and size, then enclosures, each URL once', () => {
    const xml = `<?xml version="1.0"?>
<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>Fotos</title>
<item><guid>a1</guid><title>Kyoto 🍁 紅葉</title><description>Autumn in Kyoto</description><pubDate>Sun, 01 Nov 2026 10:00:00 GMT</pubDate>
  <media:content url="https://cdn.example.jp/kyoto-1.jpg" type="image/jpeg" medium="image" width="2048" height="1365">
    <media:description type="plain">Red maple leaves over the Kamo river, 京都 at dusk</media:description>
  </media:content>
  <media:group>
    <media:content url="https://cdn.example.jp/kyoto-2.webp" type="image/webp" width="1080" height="1350"><media:title>Temple gate</media:title></media:content>
    <media:content url="https://cdn.example.jp/clip.mp4" medium="video"/>
  </media:group>
  <enclosure url="https://cdn.example.jp/kyoto-1.jpg" length="812345" type="image/jpeg"/>
  <enclosure url="https://cdn.example.jp/episode.mp3" length="31000000" type="audio/mpeg"/>
</item>
<item><guid>a2</guid><title>No pictures</title><description>Just words</description><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>
</channel></rss>`;
    const [first, second] = parseFeed(xml, NOW).posts;
    expect(first.media).toEqual([
      {
        type: 'image',
        url: 'https://cdn.example.jp/kyoto-1.jpg',
        archive_path: null,
        alt_text: 'Red maple leaves over the Kamo river, 京都 at dusk',
        width: 2048,
        height: 1365,
      },
      { type: 'image', url: 'https://cdn.example.jp/kyoto-2.webp', archive_path: null, alt_text: 'Temple gate', width: 1080, height: 1350 },
      { type: 'video', url: 'https://cdn.example.jp/clip.mp4', archive_path: null, alt_text: null, width: null, height: null },
      { type: 'audio', url: 'https://cdn.example.jp/episode.mp3', archive_path: null, alt_text: null, width: null, height: null },
    ]);
    expect(second.media).toEqual([]);
  });

  it('reads Atom enclosure links (a GIF is a gif), and ignores non-http addresses', () => {
    const xml = `<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
<entry><id>tag:x,1</id><title>Demo</title><updated>2026-11-01T00:00:00Z</updated><content>Look</content>
<link rel="alternate" href="https://blog.example.com/demo"/>
<link rel="enclosure" type="image/gif" href="https://blog.example.com/demo.gif" title="The importer progress bar filling up"/>
<link rel="enclosure" type="image/png" href="javascript:alert(1)"/>
</entry></feed>`;
    const [post] = parseFeed(xml, NOW).posts;
    expect(post.url).toBe('https://blog.example.com/demo');
    expect(post.media).toEqual([
      {
        type: 'gif',
        url: 'https://blog.example.com/demo.gif',
        archive_path: null,
        alt_text: 'The importer progress bar filling up',
        width: null,
        height: null,
      },
    ]);
  });
});

describe('mastodon API attachments', () => {
  it('keeps type, original size and description (alt text); gifv is a gif; an empty description is no alt text', () => {
    const media = mastodonMedia([
      {
        type: 'image',
        url: 'https://files.mastodon.example/media_attachments/files/113/400/000/original/a1b2.png',
        remote_url: null,
        description: 'Chart: import time fell from 41 s to 10 s 📉 (שלום, مرحبا)',
        meta: { original: { width: 1600, height: 900 } },
      },
      {
        type: 'gifv',
        url: 'https://files.mastodon.example/media_attachments/files/113/400/001/original/c3.mp4',
        description: '  ',
        meta: { original: { width: 480, height: 270 } },
      },
      { type: 'unknown', url: null, remote_url: 'https://other.example/file.bin', description: null, meta: null },
    ]);
    expect(media).toEqual([
      {
        type: 'image',
        url: 'https://files.mastodon.example/media_attachments/files/113/400/000/original/a1b2.png',
        archive_path: null,
        alt_text: 'Chart: import time fell from 41 s to 10 s 📉 (שלום, مرحبا)',
        width: 1600,
        height: 900,
      },
      {
        type: 'gif',
        url: 'https://files.mastodon.example/media_attachments/files/113/400/001/original/c3.mp4',
        archive_path: null,
        alt_text: null,
        width: 480,
        height: 270,
      },
      { type: 'other', url: 'https://other.example/file.bin', archive_path: null, alt_text: null, width: null, height: null },
    ]);
    expect(mastodonMedia(undefined)).toEqual([]);
  });
});

describe('bluesky embeds', () => {
  it('reads images#view with alt and aspectRatio, recordWithMedia, and video#view', () => {
    const images = {
      $type: 'app.bsky.embed.images#view',
      images: [
        {
          thumb: 'https://cdn.bsky.app/img/feed_thumbnail/plain/did:plc:ada123/bafkrei1@jpeg',
          fullsize: 'https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:ada123/bafkrei1@jpeg',
          alt: 'A whiteboard: 👩‍💻 → CI → 🚀',
          aspectRatio: { width: 2000, height: 1500 },
        },
        {
          thumb: 'https://cdn.bsky.app/img/feed_thumbnail/plain/did:plc:ada123/bafkrei2@jpeg',
          fullsize: 'https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:ada123/bafkrei2@jpeg',
          alt: '',
        },
      ],
    };
    expect(blueskyMedia(images)).toEqual([
      {
        type: 'image',
        url: 'https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:ada123/bafkrei1@jpeg',
        archive_path: null,
        alt_text: 'A whiteboard: 👩‍💻 → CI → 🚀',
        width: 2000,
        height: 1500,
      },
      {
        type: 'image',
        url: 'https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:ada123/bafkrei2@jpeg',
        archive_path: null,
        alt_text: null,
        width: null,
        height: null,
      },
    ]);
    expect(blueskyMedia({ $type: 'app.bsky.embed.recordWithMedia#view', media: images })).toHaveLength(2);
    expect(
      blueskyMedia({
        $type: 'app.bsky.embed.video#view',
        playlist: 'https://video.bsky.app/watch/did/bafk/playlist.m3u8',
        alt: 'Screen recording',
        aspectRatio: { width: 1920, height: 1080 },
      }),
    ).toEqual([
      {
        type: 'video',
        url: 'https://video.bsky.app/watch/did/bafk/playlist.m3u8',
        archive_path: null,
        alt_text: 'Screen recording',
        width: 1920,
        height: 1080,
      },
    ]);
    expect(blueskyMedia({ $type: 'app.bsky.embed.external#view' })).toEqual([]);
  });
});
