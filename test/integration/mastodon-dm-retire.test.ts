// Direct messages stored as public posts by a version before the audience fix (b8a690f) are
// retired by the next ingest. The first ingest here reads the timeline as that version did (it
// ignored `visibility`: the fake serves the statuses without it, so every status, the direct
// messages included, is stored as a public post, with its decode), drafts, schedules and publishes
// from it; then the timeline is served as Mastodon really answers the account's own token
// (public, unlisted, followers-only, direct), and the next ingest must retire the direct messages:
// not listed, not draftable, their text erased, every artifact drawn from them not publishable
// without confirm_non_public (the scheduled one unscheduled, its run cancelled), the published one
// left published and reported by diagnose and the inbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { mastodonAdapter } from '../../server/platforms/mastodon/adapter.js';
import { adapterContext } from '../../server/services/accounts.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, startMastodonFake, type FakeStatus } from '../support/platforms.js';
import { asAccepted, connect, getArtifact, ingest, listAllPosts, publishAndWait, publishRequest, recordedEvents, V1 } from '../support/api.js';
import { countRows, findRow, updateRows } from '../support/rows.js';
import { expectRunSucceeded, waitForRun } from '../support/runs.js';
import { seedArtifact, workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;

const DM_BOB =
  '<p><span class="h-card" translate="no"><a href="https://other.example/@bob" class="u-url mention">@<span>bob</span></a></span> مرحبا بوب! My new number is +1 555 0100 and the door code is 4471 🔑 — please don’t share 🙏</p>';
const DM_CAROL =
  '<p><span class="h-card"><a href="https://social.example/@carol" class="u-url mention">@<span>carol</span></a></span> the contract draft before we sign: שָׁלוֹם, price ¥1,200,000, clause 7 is negotiable 👨‍👩‍👧‍👦</p>';

/** The account's timeline as Mastodon answers its own token: every audience, a self-reply and a boost. */
const timeline = (): FakeStatus[] => [
  mastodonStatus(1, {
    content:
      '<p>Release 3.2 is out 🚀 👩🏽‍💻 Faster imports, a new CLI and Zoë’s café-grade docs (e\u0301 combining marks included). <a href="https://example.org/notes/3.2" rel="nofollow noopener" target="_blank">example.org/notes/3.2</a> <a href="https://mastodon.example/tags/release" class="mention hashtag">#<span>release</span></a></p>',
    favourites_count: 120,
    reblogs_count: 40,
  }),
  mastodonStatus(2, {
    content:
      '<p>東京でのミートアップ、ありがとうございました！次回は大阪で 🍜 <a href="https://mastodon.example/tags/meetup" class="mention hashtag">#<span>meetup</span></a></p>',
    visibility: 'unlisted',
  }),
  mastodonStatus(3, { content: '<p>Followers only: we are hiring two engineers before the announcement 𝔥𝔦𝔯𝔦𝔫𝔤</p>', visibility: 'private' }),
  mastodonStatus(4, { content: DM_BOB, visibility: 'direct', favourites_count: 0, reblogs_count: 0 }),
  {
    ...mastodonStatus(5, { content: DM_CAROL, visibility: 'direct', favourites_count: 1, reblogs_count: 0 }),
    spoiler_text: 'CW: private business',
  } as FakeStatus,
  {
    ...mastodonStatus(6, { content: '<p>A thread follow-up: the migration guide covers SQLite and PostgreSQL. 🧵 2/2</p>' }),
    in_reply_to_id: '1001',
    in_reply_to_account_id: '109',
  } as FakeStatus,
  mastodonStatus(7, { content: '', reblog: { id: '555', content: '<p>Someone else’s post, boosted</p>', visibility: 'public' } }),
];

/** The same timeline as the version before the audience fix read it: no audience at all, so all public. */
const asReadBeforeTheFix = () => timeline().map(({ visibility: _ignored, ...rest }) => rest as FakeStatus);

let pipelineId: string;
let workspaceId: string;
const ids = { bob: '', carol: '', release: '' };
const arts = { bobScheduled: '', carolRiff: '', brief: '', control: '' };
let scheduledRunId = '';
let secondIngest: Awaited<ReturnType<typeof ingest>>;

const draft = async (postId: string, body: { additional_post_ids?: string[] } = {}) => {
  const accepted = await unwrap(
    s.client().POST(`${V1}/posts/{id}/draft`, { params: { path: { id: postId } }, body: { idempotency_key: newIdempotencyKey(), ...body } }),
  );
  await expectRunSucceeded(s.running.deps, accepted.run_id);
  return accepted.artifact_id;
};
const draftRequest = (postId: string, body: { additional_post_ids?: string[] } = {}) =>
  s.client().POST(`${V1}/posts/{id}/draft`, { params: { path: { id: postId } }, body: { idempotency_key: newIdempotencyKey(), ...body } });

beforeAll(async () => {
  mastodon = await startMastodonFake({ statuses: asReadBeforeTheFix() });
  s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake), JOB_POLL_MS: '50' } });
  workspaceId = await workspaceOf(s.running.deps, s.token);
  await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });

  // An old install: the direct messages are public source posts, drafted from, scheduled and published.
  const first = await ingest(s, mastodon.handle);
  pipelineId = first.pipeline_id;
  const before = await listAllPosts(s, pipelineId);
  expect(before).toHaveLength(6);
  expect(before.every((p) => p.visibility === 'public')).toBe(true);
  const byStart = (start: string) => before.find((p) => p.text.startsWith(start))!.id;
  ids.bob = byStart('@bob');
  ids.carol = byStart('@carol');
  ids.release = byStart('Release 3.2');
  arts.bobScheduled = await draft(ids.bob);
  arts.carolRiff = await draft(ids.carol);
  arts.brief = await draft(ids.release, { additional_post_ids: [ids.carol] });
  arts.control = await draft(ids.release);
  const scheduled = asAccepted(await unwrap(publishRequest(s, arts.bobScheduled, { at: new Date(Date.now() + 3 * 3_600_000).toISOString() })));
  scheduledRunId = scheduled.run.run_id;
  const published = await publishAndWait(s, arts.brief);
  expect(published.artifact.state).toBe('published');

  // Then the current version reads the timeline as Mastodon answers it.
  mastodon.state.statuses = timeline();
  secondIngest = await ingest(s, mastodon.handle);
});

afterAll(async () => {
  await s?.stop();
  await mastodon?.fake.close();
});

describe('direct messages an older version stored as public posts', () => {
  it('the adapter reports the direct messages it sees as withdrawn, and never as posts', async () => {
    const listing = await mastodonAdapter.listPosts(
      adapterContext(s.running.deps, null),
      mastodon.handle,
      { secret: mastodon.state.token, secondary: null },
      { max: 200 },
    );
    expect(listing.withdrawn.sort()).toEqual(['1004', '1005']);
    expect(listing.posts.map((p) => p.externalId).sort()).toEqual(['1001', '1002', '1003', '1006']);
    expect(listing.posts.find((p) => p.externalId === '1003')?.visibility).toBe('followers');
  });

  it('the next ingest retires them: no longer listed, text, address and decode erased, the run says what it did', async () => {
    expect(secondIngest.output).toMatchObject({
      retired: { post_ids: expect.arrayContaining([ids.bob, ids.carol]), unscheduled_artifact_ids: [arts.bobScheduled] },
    });
    expect((secondIngest.output as { retired: { artifact_ids: string[] } }).retired.artifact_ids.sort()).toEqual(
      [arts.bobScheduled, arts.carolRiff, arts.brief].sort(),
    );
    const posts = await listAllPosts(s, pipelineId);
    expect(posts.map((p) => [[...p.text].slice(0, 20).join(''), p.visibility]).sort()).toEqual([
      ['A thread follow-up: ', 'public'],
      ['Followers only: we a', 'followers'],
      ['Release 3.2 is out 🚀', 'public'],
      ['東京でのミートアップ、ありがとうございま', 'unlisted'],
    ]);
    for (const id of [ids.bob, ids.carol]) {
      const row = await findRow(s.running.deps.db, 'SourcePost', { id });
      expect(row).toMatchObject({ visibility: 'direct', text: '', url: null, media: '[]' });
      expect(await countRows(s.running.deps.db, 'Decode', { postId: id })).toBe(0);
    }
    // The pipeline's post count is the posts it lists: the retired ones are not counted.
    const pipeline = await unwrap(s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id: pipelineId } } }));
    expect(pipeline.post_count).toBe(posts.length);
    const inbox = await unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pipelineId } } }));
    expect(inbox.data.some((i) => i.kind === 'source_without_artifact' && (i.post_id === ids.bob || i.post_id === ids.carol))).toBe(false);
    // One post.retired event a post, naming the artifacts drawn from it.
    const events = await recordedEvents(s, 'post.retired');
    expect(events.map((e) => e.data).sort((a, b) => String(a.post_id).localeCompare(String(b.post_id)))).toEqual(
      [
        {
          post_id: ids.bob,
          operator_id: pipelineId,
          reason: 'direct_message',
          artifact_ids: [arts.bobScheduled],
          unscheduled_artifact_ids: [arts.bobScheduled],
        },
        {
          post_id: ids.carol,
          operator_id: pipelineId,
          reason: 'direct_message',
          artifact_ids: expect.arrayContaining([arts.carolRiff, arts.brief]),
          unscheduled_artifact_ids: [],
        },
      ].sort((a, b) => a.post_id.localeCompare(b.post_id)),
    );
    // Seeing them again retires nothing more.
    const third = await ingest(s, mastodon.handle);
    expect(third.output).not.toHaveProperty('retired');
    expect(await recordedEvents(s, 'post.retired')).toHaveLength(2);
  });

  it('refuses to draft from a retired post, naming it, alone or in a brief', async () => {
    const alone = await draftRequest(ids.bob);
    expect(alone.response.status).toBe(409);
    expect(alone.error?.error).toMatchObject({
      code: 'state_conflict',
      suggested_action: 'diagnose_pipeline',
      suggested_endpoint: `GET ${V1}/pipelines/${pipelineId}/diagnose`,
    });
    expect(alone.error?.error.message).toContain(ids.bob);
    const brief = await draftRequest(ids.release, { additional_post_ids: [ids.carol] });
    expect(brief.response.status).toBe(422);
    expect(brief.error?.error.message).toMatch(new RegExp(`^body\\.additional_post_ids .*${ids.carol}`));
  });

  it('its unpublished artifacts need confirm_non_public; the scheduled one was unscheduled and its run cancelled', async () => {
    const posted = mastodon.state.posted.length;
    for (const id of [arts.bobScheduled, arts.carolRiff]) {
      expect((await getArtifact(s, id)).source_visibility).toBe('direct');
      const refused = await publishRequest(s, id);
      expect(refused.response.status).toBe(403);
      expect(refused.error?.error.message).toContain('confirm_non_public');
    }
    const scheduled = await getArtifact(s, arts.bobScheduled);
    expect(scheduled).toMatchObject({ state: 'ready', schedule: null });
    expect(await findRow(s.running.deps.db, 'Run', { id: scheduledRunId })).toMatchObject({ status: 'failed', errorCode: 'source_retired' });
    // The artifact drawn from public posts only is untouched.
    expect((await getArtifact(s, arts.control)).source_visibility).toBe('public');
    expect(mastodon.state.posted.length).toBe(posted);
    // A person who confirms can still publish it.
    const confirmed = asAccepted(
      await unwrap(publishRequest(s, arts.carolRiff, { confirm_non_public: true, at: new Date(Date.now() + 3_600_000).toISOString() })),
    );
    expect(confirmed.artifact.state).toBe('scheduled');
  });

  it('leaves the published artifact published, and diagnose and the inbox report every one of them', async () => {
    const brief = await getArtifact(s, arts.brief);
    expect(brief).toMatchObject({ state: 'published', source_visibility: 'direct' });
    const report = await unwrap(s.client().GET(`${V1}/pipelines/{id}/diagnose`, { params: { path: { id: pipelineId } } }));
    const found = report.issues.filter((i) => i.code === 'direct_message_source');
    expect(found.map((i) => i.severity)).toEqual(['warning', 'info']);
    expect(found[0]!.message).toContain(arts.brief);
    expect(found[0]!.message).toContain(brief.published_url!);
    expect(found[1]!.message).toContain(arts.bobScheduled);
    const inbox = await unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pipelineId } } }));
    const flagged = inbox.data
      .filter((i) => i.anomaly?.code === 'direct_message_source')
      .map((i) => i.artifact_id)
      .sort();
    expect(flagged).toEqual([arts.bobScheduled, arts.carolRiff, arts.brief].sort());
  });

  it('a publish run of an artifact narrowed to direct while queued does not go out without confirmation', async () => {
    const release = (await listAllPosts(s, pipelineId)).find((p) => p.id === ids.release)!;
    const unconfirmed = await seedArtifact(s.running.deps, {
      workspaceId,
      pipelineId,
      postId: release.id,
      state: 'ready',
      text: 'Queued, then narrowed ✉️ 私信',
    });
    const confirmed = await seedArtifact(s.running.deps, {
      workspaceId,
      pipelineId,
      postId: release.id,
      state: 'ready',
      text: 'Queued, narrowed, confirmed ✅',
    });
    const a = asAccepted(await unwrap(publishRequest(s, unconfirmed.id, { at: new Date(Date.now() + 1200).toISOString() })));
    const b = asAccepted(await unwrap(publishRequest(s, confirmed.id, { at: new Date(Date.now() + 1200).toISOString(), confirm_non_public: true })));
    await updateRows(s.running.deps.db, 'Artifact', { id: unconfirmed.id }, { sourceVisibility: 'direct' });
    await updateRows(s.running.deps.db, 'Artifact', { id: confirmed.id }, { sourceVisibility: 'direct' });
    const refused = await waitForRun(s.running.deps, a.run.run_id);
    expect(refused).toMatchObject({ status: 'failed', errorCode: 'forbidden' });
    expect((await getArtifact(s, unconfirmed.id)).state).toBe('publish_failed');
    expect(mastodon.state.posted.some((p) => p.text === 'Queued, then narrowed ✉️ 私信')).toBe(false);
    expect((await waitForRun(s.running.deps, b.run.run_id)).status).toBe('succeeded');
  });
});
