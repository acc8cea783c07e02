// The media of drafts: a draft carries its sources' media (in order, with alt text), a re-draft
// its parent's list; PUT /artifacts/{id}/media drops, reorders, adds uploads and sets alt text;
// a missing alt text is flagged on the artifact, in diagnose and in the inbox; uploads an
// artifact uses survive the sweep.
import { describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { sweepUnusedMedia } from '../../server/services/media.js';
import { upsertPost } from '../../server/store/posts.js';
import { photoWithGps, upload } from '../support/images.js';
import { draftPost, moveArtifact, newPipeline, unique, V1 } from '../support/api.js';
import { expectRunSucceeded } from '../support/runs.js';
import { serverSuite } from '../support/suite.js';

const t = serverSuite();

const chart = {
  type: 'image',
  url: 'https://files.mastodon.example/media/chart.png',
  archive_path: null,
  alt_text: 'Bar chart: CI time per week, 38 → 17 minutes',
  width: 1600,
  height: 900,
};
const bare = { type: 'image', url: 'https://files.mastodon.example/media/team.jpg', archive_path: null, alt_text: null, width: 1200, height: 800 };
const clip = { type: 'gif', url: 'https://files.mastodon.example/media/demo.mp4', archive_path: null, alt_text: null, width: 480, height: 270 };

async function pipeline() {
  return (await newPipeline(t.s, { intent: unique('Release posts') })).pipeline_id;
}

let seq = 0;
async function post(pipelineId: string, media: unknown[]) {
  seq += 1;
  const { post } = await upsertPost(t.s.running.deps.db, {
    id: t.s.running.deps.ids.id('post'),
    workspaceId: t.ws,
    pipelineId,
    platform: 'mastodon',
    externalId: `media-${seq}`,
    url: `https://mastodon.example/@ada/${seq}`,
    text: `Shipped v2.${seq} 🚀: the importer is ${seq + 1}x faster. 日本語のメモも。 #release`,
    publishedAt: new Date(Date.UTC(2026, 10, 1, 0, seq)),
    likes: 40,
    reposts: 5,
    replies: 2,
    quotes: 0,
    media: JSON.stringify(media),
  });
  return post.id;
}

async function drafted(postId: string, body: { parent_artifact_id?: string; additional_post_ids?: string[] } = {}) {
  const accepted = await unwrap(draftPost(t.s, postId, body));
  await expectRunSucceeded(t.s.running.deps, accepted.run_id);
  return getArtifact(accepted.artifact_id);
}
const getArtifact = (id: string) => unwrap(t.s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id } } }));
const putMedia = (id: string, media: Array<{ id: string; alt_text?: string | null }>) =>
  t.s.client().PUT(`${V1}/artifacts/{id}/media`, { params: { path: { id } }, body: { media } });

describe('media of drafts', () => {
  it('a riff carries its post media in order with alt text; a brief its sources in the order given; missing alt text is flagged', async () => {
    const pl = await pipeline();
    const p1 = await post(pl, [chart, bare]);
    const p2 = await post(pl, [clip]);
    const riff = await drafted(p1);
    expect(riff.media).toEqual([
      { id: `${p1}:0`, upload_id: null, source_post_id: p1, ...chart },
      { id: `${p1}:1`, upload_id: null, source_post_id: p1, ...bare },
    ]);
    expect(riff.media_issues).toEqual([
      { media_id: `${p1}:1`, index: 1, code: 'missing_alt_text', message: expect.stringContaining('position 2 has no alt text') },
    ]);
    const brief = await drafted(p2, { additional_post_ids: [p1] });
    expect(brief.media?.map((m) => m.id)).toEqual([`${p2}:0`, `${p1}:0`, `${p1}:1`]);
    expect(brief.media_issues?.map((i) => i.index)).toEqual([0, 2]);

    const diagnose = await unwrap(t.s.client().GET(`${V1}/pipelines/{id}/diagnose`, { params: { path: { id: pl } } }));
    const issue = diagnose.issues.find((i) => i.code === 'media_missing_alt_text');
    expect(issue).toMatchObject({ severity: 'warning', suggested_action: 'set_alt_text' });
    expect(issue!.message).toContain(riff.id);
    expect(issue!.message).toContain(brief.id);
    const inbox = await unwrap(t.s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pl } } }));
    const flagged = inbox.data.filter((i) => i.anomaly?.code === 'missing_alt_text');
    expect(flagged.map((i) => i.artifact_id).sort()).toEqual([riff.id, brief.id].sort());
    expect(flagged[0]).toMatchObject({
      kind: 'flagged_anomaly',
      priority: 70,
      suggested_action: 'set_alt_text',
      suggested_endpoint: `PUT ${V1}/artifacts/${flagged[0]!.artifact_id}/media`,
    });

    // Describe the bare image: the riff is no longer flagged.
    const fixed = await unwrap(putMedia(riff.id, [{ id: `${p1}:0` }, { id: `${p1}:1`, alt_text: 'Ada and Lin on stage, holding a cake shaped like a 4' }]));
    expect(fixed.media_issues).toEqual([]);
    const after = await unwrap(t.s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pl } } }));
    expect(after.data.filter((i) => i.anomaly?.code === 'missing_alt_text').map((i) => i.artifact_id)).toEqual([brief.id]);
  });

  it('PUT drops, reorders, adds an upload (with its alt text) and sets alt text; a re-draft carries the list; a used upload survives the sweep', async () => {
    const pl = await pipeline();
    const p = await post(pl, [chart, bare, clip]);
    const a = await drafted(p);
    const up = await upload(t.s, await photoWithGps(), { alt_text: 'Ada at the launch, 🎂 in hand' });
    expect(up.status).toBe(201);
    const set = await unwrap(
      putMedia(a.id, [{ id: up.json.id }, { id: `${p}:2`, alt_text: '  The progress bar filling in three seconds  ' }, { id: `${p}:0`, alt_text: null }]),
    );
    expect(set.media).toEqual([
      {
        id: up.json.id,
        upload_id: up.json.id,
        source_post_id: null,
        type: 'image',
        url: null,
        archive_path: null,
        alt_text: 'Ada at the launch, 🎂 in hand',
        width: 20,
        height: 40,
      },
      { id: `${p}:2`, upload_id: null, source_post_id: p, ...clip, alt_text: 'The progress bar filling in three seconds' },
      { id: `${p}:0`, upload_id: null, source_post_id: p, ...chart, alt_text: null },
    ]);
    expect(set.media_issues?.map((i) => i.media_id)).toEqual([`${p}:0`]);
    expect(await getArtifact(a.id)).toEqual(set);
    const media = await unwrap(t.s.client().GET(`${V1}/media/{id}`, { params: { path: { id: up.json.id } } }));
    expect(media).toMatchObject({ in_use: true, expires_at: null });

    const child = await drafted(p, { parent_artifact_id: a.id });
    expect(child.genealogy.parent_artifact_id).toBe(a.id);
    expect(child.media).toEqual(set.media);
    const grandchild = await drafted(p, { parent_artifact_id: child.id });
    expect(grandchild.media).toEqual(set.media);

    // The parent drops the upload; the children still use it, so the sweep keeps it.
    await unwrap(putMedia(a.id, []));
    const deps = t.s.running.deps;
    await sweepUnusedMedia({ ...deps, clock: { now: () => new Date(Date.now() + 48 * 3600 * 1000) } });
    expect((await t.s.client().GET(`${V1}/media/{id}`, { params: { path: { id: up.json.id } } })).response.status).toBe(200);
  });

  it('refuses unknown ids and repeats naming the entry, and any change to a discarded artifact; nothing changes', async () => {
    const pl = await pipeline();
    const p = await post(pl, [chart]);
    const a = await drafted(p);
    const unknown = await putMedia(a.id, [{ id: `${p}:0` }, { id: 'med_ffffffffffffffff' }]);
    expect(unknown.response.status).toBe(422);
    expect(unknown.error?.error.message).toMatch(/^body\.media\[1\]\.id names neither an item of this artifact nor an upload/);
    const twice = await putMedia(a.id, [{ id: `${p}:0` }, { id: `${p}:0` }]);
    expect(twice.response.status).toBe(422);
    expect(twice.error?.error.message).toMatch(/^body\.media\[1\]\.id repeats/);
    // Another workspace's upload is not one of yours.
    const theirs = await upload(t.s, await photoWithGps(), {}, 'image/jpeg', await t.s.newWorkspace());
    expect(theirs.status).toBe(201);
    const foreign = await putMedia(a.id, [{ id: theirs.json.id }]);
    expect(foreign.response.status).toBe(422);
    expect(foreign.error?.error.message).toMatch(/^body\.media\[0\]\.id names neither/);
    expect((await getArtifact(a.id)).media).toHaveLength(1);

    await moveArtifact(t.s, a.id, 'discarded');
    const late = await putMedia(a.id, []);
    expect(late.response.status).toBe(409);
    expect(late.error?.error).toMatchObject({ code: 'state_conflict', suggested_action: 'fetch_artifact' });
    expect((await getArtifact(a.id)).media).toHaveLength(1);
    expect(
      (await t.s.client().PUT(`${V1}/artifacts/{id}/media`, { params: { path: { id: 'art_0000000000000000' } }, body: { media: [] } })).response.status,
    ).toBe(404);
  });
});
