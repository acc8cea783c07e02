// Real data, read as the authors wrote it (issue 24), through the API on a real database: an X
// archive with edit chains imports one post per chain (first version's date and address kept),
// a Mastodon archive keeps content warnings and polls on the posts list, and a Mastodon post
// under a content warning is drafted and published again under it (`spoiler_text`): the warning
// is plain text, its `<` and `&amp;` kept as typed, and what the HTML content showed as text
// (`x < y &amp; <script>`) is what is published.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey } from '../../clients/typescript/src/index.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, startMastodonFake, type FakeStatus } from '../support/platforms.js';
import { connect, draftAndWait, ingest, listAllPosts, moveArtifact, publishAndWait, rawRequest, V1 } from '../support/api.js';
import { mastodonWarningsAndPolls, writeZip, xEditChains } from '../support/exports.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;

beforeAll(async () => {
  mastodon = await startMastodonFake({
    statuses: [
      mastodonStatus(1, {
        content: '<p>The finale was worth the wait: x &lt; y &amp;amp; &lt;script&gt; stays.</p>',
        spoiler_text: 'Spoilers: season 4 <finale> &amp; S5',
      }),
      mastodonStatus(2, { content: '<p>No warning on this one.</p>' }),
      {
        ...mastodonStatus(3, { content: '<p>Tabs or spaces?</p>' }),
        poll: {
          id: '77',
          expires_at: '2026-11-20T10:00:00.000Z',
          expired: true,
          multiple: false,
          votes_count: 9,
          voters_count: 9,
          options: [
            { title: 'Tabs', votes_count: 4 },
            { title: 'Spaces', votes_count: 5 },
          ],
        },
      } as FakeStatus,
    ],
  });
  s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake), JOB_POLL_MS: '50' } });
});

afterAll(async () => {
  await s?.stop();
  await mastodon?.fake.close();
});

async function upload(body: Buffer, handle: string) {
  const qs = new URLSearchParams({ idempotency_key: newIdempotencyKey(), handle });
  const r = await rawRequest(s, `${V1}/imports?${qs}`, { method: 'POST', headers: { 'Content-Type': 'application/zip' }, body: new Uint8Array(body) });
  expect(r.res.status).toBe(201);
  return r.body as Record<string, any>;
}

describe('an X archive with edited tweets', () => {
  it('lists one post per edit chain: the last version, the first version date, and the first address in first_version_url', async () => {
    const g = xEditChains(4);
    const imported = await upload((await writeZip(g.files))!, 'ada-x-edits');
    expect(imported.summary.posts).toBe(8);
    const { pipeline_id } = await ingest(s, 'ada-x-edits');
    const posts = await listAllPosts(s, pipeline_id);
    expect(posts).toHaveLength(8);
    for (const p of posts) {
      const e = [...g.expected.values()].find((x) => x.text === p.text)!;
      expect(e, p.text).toBeDefined();
      expect({ published_at: p.published_at, first_version_url: p.first_version_url }).toEqual({
        published_at: e.publishedAt,
        first_version_url: e.firstVersionUrl,
      });
    }
    // Importing again changes nothing: the chain's post is found by its first version's id.
    const again = await ingest(s, 'ada-x-edits');
    expect(again.output).toMatchObject({ fetched: 8, created: 0, updated: 8 });
  });
});

describe('a Mastodon archive with content warnings and polls', () => {
  it('keeps the warning and the poll on the posts list, and the media with alt text', async () => {
    await upload((await writeZip(mastodonWarningsAndPolls().files))!, 'ada-mastodon-cw');
    const { pipeline_id } = await ingest(s, 'ada-mastodon-cw');
    const posts = await listAllPosts(s, pipeline_id);
    const byWarning = new Map(posts.map((p) => [p.content_warning, p]));
    expect(byWarning.get('Spoilers: the finale of 「進撃の巨人」 🧵')).toMatchObject({
      poll: null,
      media: [
        expect.objectContaining({
          alt_text: 'A wall at sunset, with a bird on it — مرحبا',
          archive_path: 'media_attachments/files/110/000/001/original/finale.jpg',
        }),
      ],
    });
    expect(byWarning.get('Politics (mild)')).toMatchObject({
      text: expect.stringContaining('○ Ranked choice 🗳️'),
      poll: { multiple: false, voters: 42, closes_at: '2024-05-09T09:00:00.000Z', options: expect.arrayContaining([{ title: 'Approval', votes: 7 }]) },
    });
    expect(byWarning.get(null)).toMatchObject({
      poll: {
        multiple: true,
        options: [
          { title: 'Monday', votes: 3 },
          { title: 'Samedi', votes: 4 },
        ],
      },
    });
  });
});

describe('a Mastodon post under a content warning', () => {
  it('is listed with its warning apart from the text; its draft carries it; publishing sends it as spoiler_text', async () => {
    await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    const { pipeline_id } = await ingest(s, mastodon.handle);
    const posts = await listAllPosts(s, pipeline_id);
    const warned = posts.find((p) => p.content_warning)!;
    expect(warned).toMatchObject({
      content_warning: 'Spoilers: season 4 <finale> &amp; S5',
      text: 'The finale was worth the wait: x < y &amp; <script> stays.',
    });
    const plainPost = posts.find((p) => p.text === 'No warning on this one.')!;
    expect(plainPost.content_warning).toBeNull();
    expect(posts.find((p) => p.poll)).toMatchObject({
      text: 'Tabs or spaces?\n\n○ Tabs\n○ Spaces',
      poll: {
        multiple: false,
        voters: 9,
        closes_at: '2026-11-20T10:00:00.000Z',
        options: [
          { title: 'Tabs', votes: 4 },
          { title: 'Spaces', votes: 5 },
        ],
      },
    });

    const { artifact } = await draftAndWait(s, warned.id);
    expect(artifact.content_warning).toBe('Spoilers: season 4 <finale> &amp; S5');
    await moveArtifact(s, artifact.id, 'ready');
    const { artifact: published } = await publishAndWait(s, artifact.id);
    expect(published.state).toBe('published');
    const sent = mastodon.state.posted.find((p) => p.idempotencyKey === `cp-${artifact.id}`)!;
    expect(sent.spoilerText).toBe('Spoilers: season 4 <finale> &amp; S5');
    // The content was HTML, read once at ingest: what it showed as text is what is published.
    expect(sent.text).toContain('x < y &amp; <script> stays');

    // A draft of a post without a warning publishes without one.
    const plain = await draftAndWait(s, plainPost.id);
    expect(plain.artifact.content_warning).toBeNull();
    await moveArtifact(s, plain.artifact.id, 'ready');
    await publishAndWait(s, plain.artifact.id);
    expect(mastodon.state.posted.find((p) => p.idempotencyKey === `cp-${plain.artifact.id}`)!.spoilerText).toBeUndefined();
  });
});
