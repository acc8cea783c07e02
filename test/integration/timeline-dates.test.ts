// Dates read through the Mastodon and Bluesky APIs (their fakes) are checked where they are parsed
// (issue 30): a status or post dated outside the years 0001–9999, or not at all, is ingested with
// its words, flagged `unread_date` (the date as written) and dated at its first ingest; the posts
// list and the inbox answer 200. Before, such a post was dropped without a word, or stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, startBlueskyFake, startMastodonFake } from '../support/platforms.js';
import { connect, ingest, listAllPosts, V1 } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ODD = ['+275760-09-13T00:00:00Z', '+010000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z'];

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;

beforeAll(async () => {
  mastodon = await startMastodonFake({
    statuses: [mastodonStatus(1), ...ODD.map((created_at, i) => mastodonStatus(2 + i, { created_at, content: `<p>Odd date ${i}: still my words</p>` }))],
  });
  const post = (rkey: string, text: string, createdAt: string) => ({ rkey, text, createdAt, likeCount: 0, repostCount: 0, replyCount: 0, quoteCount: 0 });
  bluesky = await startBlueskyFake({
    posts: [post('3kfine', 'A fine date', '2026-10-05T10:00:00.000Z'), ...ODD.map((d, i) => post(`3kodd${i}`, `Odd date ${i}: still my words`, d))],
  });
  s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake, bluesky.fake), ...bluesky.env } });
});

afterAll(async () => {
  await s?.stop();
  for (const f of [mastodon?.fake, bluesky?.fake]) await f?.close();
});

async function checkFlagged(pipelineId: string) {
  const posts = await listAllPosts(s, pipelineId);
  expect(posts).toHaveLength(4);
  const odd = posts.filter((p) => p.text.startsWith('Odd date'));
  expect(odd.map((p) => p.unread_date).sort()).toEqual([...ODD].sort());
  // Dated at the fetch that found it, just before it was stored.
  for (const p of odd) expect(Date.parse(p.created_at) - Date.parse(p.published_at)).toBeGreaterThanOrEqual(0);
  for (const p of odd) expect(Date.parse(p.created_at) - Date.parse(p.published_at)).toBeLessThan(600_000);
  expect(posts.filter((p) => p.unread_date === null)).toHaveLength(1);
  const inbox = await s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pipelineId } } });
  expect(inbox.response.status).toBe(200);
}

describe('a timeline with dates outside the years 0001–9999', () => {
  it('Mastodon API: every status ingested, the odd ones flagged', async () => {
    await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    await checkFlagged((await ingest(s, mastodon.handle)).pipeline_id);
  });

  it('Bluesky API: every post ingested, the odd ones flagged', async () => {
    await connect(s, { platform: 'bluesky', handle: 'ada.bsky.social', auth_material: bluesky.state.appPassword });
    await checkFlagged((await ingest(s, 'ada.bsky.social')).pipeline_id);
  });
});
