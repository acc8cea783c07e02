// Media of source posts through ingest: the Mastodon and Bluesky APIs (their fakes) and the
// sample exports keep each attachment's type, size, alt text and where the bytes are, and
// GET /pipelines/{id}/posts shows them; a re-ingest updates them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, startBlueskyFake, startMastodonFake } from '../support/platforms.js';
import { connect, ingest, listAllPosts } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;

const chart = {
  id: '22',
  type: 'image',
  url: 'https://files.mastodon.example/media_attachments/files/000/022/original/chart.png',
  preview_url: 'https://files.mastodon.example/media_attachments/files/000/022/small/chart.png',
  remote_url: null,
  description: 'Bar chart: CI time per week, 38 → 17 minutes ⏱️',
  meta: { original: { width: 1600, height: 900, size: '1600x900', aspect: 1.78 } },
  blurhash: 'UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH',
};

beforeAll(async () => {
  mastodon = await startMastodonFake({
    statuses: [
      mastodonStatus(1, {
        content: '<p>CI is twice as fast now.</p>',
        media_attachments: [
          chart,
          { ...chart, id: '23', type: 'gifv', url: 'https://files.mastodon.example/media_attachments/files/000/023/original/demo.mp4', description: null },
        ],
      }),
      // A picture without a word: still a post.
      mastodonStatus(2, { content: '', media_attachments: [{ ...chart, id: '24', description: '夕焼けの富士山' }] }),
      mastodonStatus(3),
    ],
  });
  bluesky = await startBlueskyFake({
    posts: [
      {
        rkey: '3kmedia',
        text: 'Our new office 🏢',
        createdAt: '2026-10-05T10:00:00.000Z',
        likeCount: 12,
        repostCount: 1,
        replyCount: 0,
        quoteCount: 0,
        embed: {
          $type: 'app.bsky.embed.images#view',
          images: [
            {
              thumb: 'https://cdn.bsky.app/img/feed_thumbnail/plain/did:plc:ada123/bafkreia@jpeg',
              fullsize: 'https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:ada123/bafkreia@jpeg',
              alt: 'Desks by a window, plants on every shelf',
              aspectRatio: { width: 1200, height: 800 },
            },
          ],
        },
      },
    ],
  });
  s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake, bluesky.fake), ...bluesky.env } });
});

afterAll(async () => {
  await s?.stop();
  for (const f of [mastodon?.fake, bluesky?.fake]) await f?.close();
});

describe('media of source posts', () => {
  it('Mastodon API: attachments with type, size and alt text, in order; an image-only status is kept; re-ingest updates them', async () => {
    await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    const { pipeline_id } = await ingest(s, mastodon.handle);
    const posts = await listAllPosts(s, pipeline_id);
    const ci = posts.find((p) => p.text === 'CI is twice as fast now.')!;
    expect(ci.media).toEqual([
      { type: 'image', url: chart.url, archive_path: null, alt_text: 'Bar chart: CI time per week, 38 → 17 minutes ⏱️', width: 1600, height: 900 },
      {
        type: 'gif',
        url: 'https://files.mastodon.example/media_attachments/files/000/023/original/demo.mp4',
        archive_path: null,
        alt_text: null,
        width: 1600,
        height: 900,
      },
    ]);
    expect(posts.find((p) => p.text === '')?.media[0]?.alt_text).toBe('夕焼けの富士山');
    expect(posts.find((p) => p.text.startsWith('Post 3'))?.media).toEqual([]);

    // The author adds the missing description upstream: the next ingest carries it.
    (mastodon.state.statuses[0].media_attachments![1] as { description: string }).description = 'The progress bar filling in 3 seconds';
    await ingest(s, mastodon.handle);
    const again = (await listAllPosts(s, pipeline_id)).find((p) => p.id === ci.id)!;
    expect(again.media[1].alt_text).toBe('The progress bar filling in 3 seconds');
  });

  it('Bluesky API: the images embed with its alt text and aspect ratio', async () => {
    await connect(s, { platform: 'bluesky', handle: 'ada.bsky.social', auth_material: bluesky.state.appPassword });
    const { pipeline_id } = await ingest(s, 'ada.bsky.social');
    const [post] = await listAllPosts(s, pipeline_id);
    expect(post.media).toEqual([
      {
        type: 'image',
        url: 'https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:ada123/bafkreia@jpeg',
        archive_path: null,
        alt_text: 'Desks by a window, plants on every shelf',
        width: 1200,
        height: 800,
      },
    ]);
  });
});
