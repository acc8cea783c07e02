// Destinations apart from sources (issue 23): a draft of an imported archive published to a
// Mastodon and a Bluesky account in one request, each destination with its own thread, parts and
// state, failing and resuming on its own and posted exactly once (counted at the fakes' wire);
// a destination revoked before its schedule fails alone; a post made by hand on X recorded with
// mark-published; a publish with nowhere to go refused; a pipeline's default destinations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { tidFor } from '../../server/platforms/bluesky/adapter.js';
import {
  asAccepted,
  getArtifact,
  ingestArchive,
  listAllPosts,
  publishingWorld,
  publishRequest,
  recordedEvents,
  unique,
  uniqueKey,
  V1,
} from '../support/api.js';
import { findRow, findRows } from '../support/rows.js';
import { waitForRun } from '../support/runs.js';
import { seedArtifact } from '../support/seed.js';
import type { TestServer } from '../support/server.js';

type World = Awaited<ReturnType<typeof publishingWorld>>;

let world: World | undefined;
let s: TestServer;
let mastodon: World['mastodon'];
let bluesky: World['bluesky'];
let workspaceId: string;
let archive: { id: string; postId: string };
let mastodonAccount: string;
let blueskyAccount: string;

beforeAll(async () => {
  world = await publishingWorld();
  ({ s, mastodon, bluesky, workspaceId } = world);
  // The source: an imported X archive, which this service cannot post to.
  const { pipeline_id } = await ingestArchive(s, 'x-tweets.js', 'ada-x-archive', 'x');
  archive = { id: pipeline_id, postId: (await listAllPosts(s, pipeline_id))[0].id };
  mastodonAccount = (await findRow(s.running.deps.db, 'Account', { platform: 'mastodon' })).id;
  blueskyAccount = (await findRow(s.running.deps.db, 'Account', { platform: 'bluesky' })).id;
});

afterAll(async () => {
  await world?.stop();
});

/** A ready artifact of the archive pipeline with a thread for Mastodon and one for Bluesky. */
async function twoThreads(tag: string) {
  const m = [
    `🦣 ${tag}: the importer is 4× faster 1/3`,
    `東京 → ok, שלום, e\u0301clair, 👩🏽‍💻 (${tag}) 2/3`,
    `${tag}-M3 notes: https://blog.example.org/${tag} 3/3`,
  ];
  const b = [`🦋 ${tag}: the importer is 4× faster 1/3`, `𝕌nicode 🀄 everywhere (${tag}) 2/3`, `${tag}-B3 notes: https://blog.example.org/${tag} #release 3/3`];
  const a = await seedArtifact(s.running.deps, { workspaceId, pipelineId: archive.id, postId: archive.postId, state: 'ready', text: m.join('\n\n') });
  for (const [platform, parts] of [
    ['mastodon', m],
    ['bluesky', b],
  ] as const)
    await unwrap(s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform } }, body: { parts } }));
  return { a, m, b };
}

async function publishAndFinish(id: string, body: Parameters<typeof publishRequest>[2] = {}) {
  const accepted = asAccepted(await unwrap(publishRequest(s, id, body)));
  const run = await waitForRun(s.running.deps, accepted.run.run_id);
  return { accepted, run, artifact: await getArtifact(s, id) };
}

const createsOf = (rkey: string) =>
  bluesky.fake.requests.filter((r) => r.url === '/xrpc/com.atproto.repo.createRecord' && (JSON.parse(r.body.toString()) as { rkey: string }).rkey === rkey)
    .length;

describe('one artifact, two destinations', () => {
  it('posts each platform its own thread; Bluesky failing at part 3 leaves Mastodon live; publishing again resumes Bluesky alone; each part posted once', async () => {
    const { a, m, b } = await twoThreads('d1');
    bluesky.state.refuseText = 'd1-B3';
    const first = await publishAndFinish(a.id, { destinations: [mastodonAccount, { platform: 'bluesky', handle: bluesky.state.handle }] });
    expect(first.accepted.artifact.destinations.map((d) => [d.account_id, d.state])).toEqual([
      [mastodonAccount, 'publishing'],
      [blueskyAccount, 'publishing'],
    ]);
    expect(first.run.status).toBe('failed');
    const failed = first.artifact;
    expect(failed.state).toBe('publish_failed');
    const [md, bd] = failed.destinations;
    expect(md).toMatchObject({ platform: 'mastodon', state: 'live', error: null, manual: false });
    expect(md.parts).toHaveLength(3);
    expect(bd).toMatchObject({ platform: 'bluesky', state: 'failed', error: { code: expect.any(String) } });
    expect(bd.parts).toHaveLength(2);
    // Mastodon got the Mastodon thread, each part a reply to the one before.
    const posted = mastodon.state.posted.filter((p) => p.text.includes('d1'));
    expect(posted.map((p) => p.text)).toEqual(m);
    expect(posted[1].inReplyToId).toBe(posted[0].id);
    expect(md.url).toBe(md.parts[0].url);
    // The event names each destination's outcome.
    const event = (await recordedEvents(s, 'artifact.publish_failed')).find((e) => e.data.artifact_id === a.id);
    expect((event!.data.destinations as Array<{ platform: string; state: string }>).map((d) => [d.platform, d.state])).toEqual([
      ['mastodon', 'live'],
      ['bluesky', 'failed'],
    ]);
    // The inbox flags it.
    const inbox = await unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: archive.id } } }));
    expect(inbox.data.some((i) => i.id === `flagged_anomaly:publish_failed:${a.id}`)).toBe(true);

    // Publishing again (no destinations named) resumes Bluesky from part 3; Mastodon is not touched.
    bluesky.state.refuseText = null;
    const mastodonCalls = mastodon.fake.requests.filter((r) => r.url === '/api/v1/statuses' && r.method === 'POST').length;
    const again = await publishAndFinish(a.id);
    expect(again.run.status).toBe('succeeded');
    expect(again.artifact.state).toBe('published');
    expect(again.artifact.destinations.map((d) => [d.platform, d.state, d.parts.length])).toEqual([
      ['mastodon', 'live', 3],
      ['bluesky', 'live', 3],
    ]);
    expect(mastodon.fake.requests.filter((r) => r.url === '/api/v1/statuses' && r.method === 'POST').length).toBe(mastodonCalls);
    expect(mastodon.state.posted.filter((p) => p.text.includes('d1'))).toHaveLength(3);
    const rkeys = b.map((_, i) => tidFor({ id: a.id, createdAt: a.createdAt, position: i }));
    expect(rkeys.map((k) => bluesky.state.records.get(k)?.text)).toEqual(b);
    // Parts 1-2 created once; part 3 refused once, then created by the resume.
    expect(rkeys.map(createsOf)).toEqual([1, 1, 2]);
    expect(again.artifact.published_url).toBe(md.url);
    const published = (await recordedEvents(s, 'artifact.published')).filter((e) => e.data.artifact_id === a.id);
    expect(published).toHaveLength(1);
  });

  it('a Bluesky outage is retried by the run; Mastodon, live at the first attempt, is not posted again', async () => {
    const { a } = await twoThreads('d2');
    bluesky.state.failCreates = 1;
    const accepted = asAccepted(await unwrap(publishRequest(s, a.id, { destinations: [mastodonAccount, blueskyAccount] })));
    const run = await waitForRun(s.running.deps, accepted.run.run_id);
    expect(run.status).toBe('succeeded');
    expect(run.attempts).toBe(2);
    const done = await getArtifact(s, a.id);
    expect(done.state).toBe('published');
    expect(mastodon.state.posted.filter((p) => p.text.includes('d2'))).toHaveLength(3);
  });
});

describe('nothing claims to be published that was not posted', () => {
  it('refuses a publish with no destination on an archive pipeline (409 naming what is missing), and changes nothing', async () => {
    const a = await seedArtifact(s.running.deps, { workspaceId, pipelineId: archive.id, postId: archive.postId, state: 'ready', text: 'Nowhere to go 🛤️' });
    const res = await publishRequest(s, a.id);
    expect(res.response.status).toBe(409);
    expect(res.error).toMatchObject({ error: { code: 'state_conflict', suggested_action: 'set_destinations' } });
    expect((res.error as { error: { message: string } }).error.message).toContain('no destination');
    expect(await getArtifact(s, a.id)).toMatchObject({ state: 'ready', destinations: [], published_parts: [] });
  });

  it('refuses a destination that cannot post (422 naming it) and one not connected (424 connect_account)', async () => {
    const a = await seedArtifact(s.running.deps, { workspaceId, pipelineId: archive.id, postId: archive.postId, state: 'ready', text: 'Wrong places' });
    const archiveAccount = (await findRow(s.running.deps.db, 'Account', { platform: 'archive' })).id;
    const bad = await publishRequest(s, a.id, { destinations: [mastodonAccount, archiveAccount] });
    expect(bad.response.status).toBe(422);
    expect((bad.error as { error: { message: string } }).error.message).toContain('body.destinations[1]');
    const twice = await publishRequest(s, a.id, { destinations: [mastodonAccount, { platform: 'mastodon', handle: mastodon.handle }] });
    expect(twice.response.status).toBe(422);
    const missing = await publishRequest(s, a.id, { destinations: [{ platform: 'bluesky', handle: 'nobody.bsky.example' }] });
    expect(missing.response.status).toBe(424);
    expect(missing.error).toMatchObject({ error: { code: 'credential_missing', suggested_action: 'connect_account' } });
    expect((await getArtifact(s, a.id)).state).toBe('ready');
  });

  it('records a post made by hand on X: the artifact is published with that address, and nothing was posted by the service', async () => {
    const a = await seedArtifact(s.running.deps, {
      workspaceId,
      pipelineId: archive.id,
      postId: archive.postId,
      state: 'ready',
      text: `Posted by hand ${unique('x')}`,
    });
    const url = 'https://x.com/ada_lovelace/status/1859951771532320873';
    const body = { platform: 'x' as const, url, handle: '@ada_lovelace', idempotency_key: uniqueKey('mark') };
    const marked = await unwrap(s.client().POST(`${V1}/artifacts/{id}/mark-published`, { params: { path: { id: a.id } }, body }));
    expect(marked).toMatchObject({ state: 'published', published_url: url, published_parts: [] });
    expect(marked.destinations).toEqual([
      expect.objectContaining({ destination: 'manual:x', platform: 'x', manual: true, state: 'live', url, handle: '@ada_lovelace', parts: [] }),
    ]);
    expect((await getArtifact(s, a.id)).destinations).toHaveLength(1);
    // Replayed with the same key: the same answer.
    const replay = await unwrap(s.client().POST(`${V1}/artifacts/{id}/mark-published`, { params: { path: { id: a.id } }, body }));
    expect(replay.destinations).toEqual(marked.destinations);
    expect(mastodon.state.posted.some((p) => p.text.includes(a.text))).toBe(false);
    const event = (await recordedEvents(s, 'artifact.published')).find((e) => e.data.artifact_id === a.id);
    expect(event!.data).toMatchObject({ published_url: url, parts: 0 });
    // Only the platforms the service cannot post to; a draft is 403.
    const wrong = await s.client().POST(`${V1}/artifacts/{id}/mark-published`, {
      params: { path: { id: a.id } },
      body: { platform: 'mastodon' as 'x', url, idempotency_key: uniqueKey('mark') },
    });
    expect(wrong.response.status).toBe(422);
    const draft = await seedArtifact(s.running.deps, { workspaceId, pipelineId: archive.id, postId: archive.postId, state: 'draft', text: 'Still a draft' });
    const refused = await s.client().POST(`${V1}/artifacts/{id}/mark-published`, {
      params: { path: { id: draft.id } },
      body: { platform: 'linkedin', url: 'https://www.linkedin.com/feed/update/urn:li:activity:7265839201837461504/', idempotency_key: uniqueKey('mark') },
    });
    expect(refused.response.status).toBe(403);
  });
});

describe("a pipeline's default destinations", () => {
  it('are set at creation and later; a publish that names none goes to them', async () => {
    const created = await unwrap(
      s.client().POST(`${V1}/pipelines/from-intent`, {
        body: { handle: 'ada-x-archive', intent: unique('Best of the archive'), destinations: [blueskyAccount], idempotency_key: uniqueKey('pl') },
      }),
    );
    const p = await unwrap(s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id: created.pipeline_id } } }));
    expect(p.destinations).toEqual([{ account_id: blueskyAccount, platform: 'bluesky', handle: bluesky.state.handle }]);
    // A Mastodon pipeline keeps its own account by default (account_id null: resolved when publishing).
    const own = await unwrap(s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id: world!.pipelines.mastodon.id } } }));
    expect(own.destinations).toEqual([{ account_id: null, platform: 'mastodon', handle: mastodon.handle }]);
    // Set later, idempotent.
    for (let i = 0; i < 2; i++) {
      const set = await unwrap(
        s.client().PUT(`${V1}/pipelines/{id}/destinations`, {
          params: { path: { id: archive.id } },
          body: { destinations: [{ platform: 'mastodon', handle: mastodon.handle }, blueskyAccount] },
        }),
      );
      expect(set.destinations.map((d) => d.account_id)).toEqual([mastodonAccount, blueskyAccount]);
    }
    const { a, m } = await twoThreads('d3');
    const done = await publishAndFinish(a.id);
    expect(done.artifact.state).toBe('published');
    expect(done.artifact.destinations.map((d) => d.platform)).toEqual(['mastodon', 'bluesky']);
    expect(mastodon.state.posted.filter((x) => x.text.includes('d3')).map((x) => x.text)).toEqual(m);
    // Cleared: back to no destination, 409.
    await unwrap(s.client().PUT(`${V1}/pipelines/{id}/destinations`, { params: { path: { id: archive.id } }, body: { destinations: [] } }));
    const b = await seedArtifact(s.running.deps, { workspaceId, pipelineId: archive.id, postId: archive.postId, state: 'ready', text: 'No default any more' });
    expect((await publishRequest(s, b.id)).response.status).toBe(409);
    // Another workspace's pipeline is 404; an account that cannot post is 422.
    const archiveAccount = (await findRow(s.running.deps.db, 'Account', { platform: 'archive' })).id;
    const bad = await s.client().PUT(`${V1}/pipelines/{id}/destinations`, { params: { path: { id: archive.id } }, body: { destinations: [archiveAccount] } });
    expect(bad.response.status).toBe(422);
  });
});

describe('scheduling to several destinations', () => {
  it('a destination whose account is revoked before the time fails visibly; the other still goes', async () => {
    const { a, b } = await twoThreads('d4');
    const at = new Date(Date.now() + 1500).toISOString();
    const accepted = asAccepted(await unwrap(publishRequest(s, a.id, { at, destinations: [mastodonAccount, blueskyAccount] })));
    expect(accepted.artifact.destinations.map((d) => d.state)).toEqual(['scheduled', 'scheduled']);
    const listed = await unwrap(s.client().GET(`${V1}/pipelines/{id}/schedule`, { params: { path: { id: archive.id } } }));
    expect(listed.data.find((x) => x.id === a.id)?.destinations.map((d) => d.platform)).toEqual(['mastodon', 'bluesky']);
    // Between scheduling and the due time, Mastodon refuses the token (revoked).
    mastodon.state.revoked = true;
    const run = await waitForRun(s.running.deps, accepted.run.run_id);
    expect(run).toMatchObject({ status: 'failed', errorCode: 'credential_dead' });
    const after = await getArtifact(s, a.id);
    expect(after.state).toBe('publish_failed');
    expect(after.destinations.map((d) => [d.platform, d.state, d.error?.code ?? null])).toEqual([
      ['mastodon', 'failed', 'credential_dead'],
      ['bluesky', 'live', null],
    ]);
    const rkeys = b.map((_, i) => tidFor({ id: a.id, createdAt: a.createdAt, position: i }));
    expect(rkeys.map(createsOf)).toEqual([1, 1, 1]);
    expect(mastodon.state.posted.some((p) => p.text.includes('d4'))).toBe(false);
    const event = (await recordedEvents(s, 'artifact.publish_failed')).find((e) => e.data.artifact_id === a.id);
    expect(event!.data.destinations).toEqual([
      expect.objectContaining({ platform: 'mastodon', state: 'failed' }),
      expect.objectContaining({ platform: 'bluesky', state: 'live' }),
    ]);
    const inbox = await unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: archive.id } } }));
    expect(inbox.data.find((i) => i.id === `flagged_anomaly:publish_failed:${a.id}`)).toMatchObject({ suggested_action: 'connect_account' });
  });
});

describe('the artifacts list, by destination', () => {
  /** Every artifact id GET /artifacts lists with `query`, page by page. */
  async function listed(query: { destination: string; state?: Array<'published' | 'publish_failed'> }, token?: string) {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await unwrap(s.client(token).GET(`${V1}/artifacts`, { params: { query: { ...query, limit: 100, ...(cursor ? { cursor } : {}) } } }));
      ids.push(...page.data.map((a) => a.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return ids.sort();
  }
  const withDestination = async (destination: string, states?: string[]) => {
    const rows = await findRows(s.running.deps.db, 'ArtifactDestination', { destination });
    const ids = new Set(rows.map((r) => r.artifactId));
    if (!states) return [...ids].sort();
    const arts = await Promise.all([...ids].map((id) => findRow(s.running.deps.db, 'Artifact', { id })));
    return arts
      .filter((a) => states.includes(a.state))
      .map((a) => a.id)
      .sort();
  };

  it('lists exactly the artifacts with that destination, combined with the other filters, and nothing of another workspace', async () => {
    const bsky = await listed({ destination: blueskyAccount });
    expect(bsky.length).toBeGreaterThan(2);
    expect(bsky).toEqual(await withDestination(blueskyAccount));
    expect(await listed({ destination: mastodonAccount, state: ['publish_failed'] })).toEqual(await withDestination(mastodonAccount, ['publish_failed']));
    const byHand = await listed({ destination: 'manual:x' });
    expect(byHand).toHaveLength(1);
    expect(byHand).toEqual(await withDestination('manual:x'));
    // Another workspace sees none of them; a value that is no destination is 422.
    expect(await listed({ destination: blueskyAccount }, await s.newWorkspace())).toEqual([]);
    const bad = await s.client().GET(`${V1}/artifacts`, { params: { query: { destination: 'mastodon' } } });
    expect(bad.response.status).toBe(422);
  });
});
