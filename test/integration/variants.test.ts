// Platform variants through the typed client against a real server: the agent's own split and
// text (PUT /artifacts/{id}/variants/{platform}), adding a target, the validation (a part over the
// limit names `body.parts[i]` and stores nothing), the state rules, and the publishing seam
// (`publishableParts`).
import { describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { countLength, PLATFORM_RULES, type TargetPlatform } from '../../server/services/platform-text.js';
import { deriveVariant, publishableParts } from '../../server/services/variants.js';
import { insertVariants, putVariant as storePutVariant } from '../../server/store/variants.js';
import { refusal } from '../support/errors.js';
import { countRows, findRows, insertRow } from '../support/rows.js';
import { expectRunSucceeded } from '../support/runs.js';
import { seedArtifact, seedPosts } from '../support/seed.js';
import { serverSuite } from '../support/suite.js';
import { draftPost, newPipeline, unique, V1 } from '../support/api.js';

const t = serverSuite();

// Realistic text: a ZWJ family, a flag, a skin tone, CJK, combining marks, a long URL, a remote mention, hashtags.
const LONG = [
  'Shipped v2.3 of the importer today 👩‍👩‍👧‍👦🇫🇷👍🏽: it is 4x faster on large CSV files, because rows are streamed instead of loaded whole.',
  'Memory use dropped from 2 GB to 150 MB. Thanks @ada@fosstodon.org and @lin.bsky.social for the reports that started it; the café team (naïve ÿ with combining: e\u0301) tested it on 10,000 files.',
  '日本語のユーザーからも報告がありました。大きなファイルでも速くなりました。ありがとうございます。',
  'Release notes: https://example.com/blog/2026/11/importer-v2-3-streaming-archives-instead-of-loading-them-whole?ref=announcement',
  '#release #opensource #performance #importer',
].join('\n\n');

async function pipelineWithPost(handle = '@ada@mastodon.example', platform?: 'rss' | 'archive') {
  const deps = t.s.running.deps;
  // A feed or archive pipeline is inserted as a row: creating it through the API would queue an ingest that reaches out.
  const pipelineId = platform
    ? (
        await insertRow(deps.db, 'Pipeline', {
          id: deps.ids.id('pl'),
          workspaceId: t.ws,
          handle,
          intent: 'Release posts',
          tone: null,
          platform,
          createdAt: new Date(),
          updatedAt: new Date(),
        })
      ).id
    : (await newPipeline(t.s, { handle, intent: unique('Release posts') })).pipeline_id;
  const [postId] = await seedPosts(deps, { workspaceId: t.ws, pipelineId, count: 1 });
  return { pipelineId, postId: postId! };
}

async function artifact(state = 'review', text = LONG) {
  const { pipelineId, postId } = await pipelineWithPost();
  return seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId, postId, state, text });
}

type Body = { text?: string; parts?: string[]; numbered?: boolean };
const put = (id: string, platform: TargetPlatform, body: Body) =>
  t.s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id, platform } }, body });
const getArtifact = (id: string) => unwrap(t.s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id } } }));

describe('PUT /artifacts/{id}/variants/{platform}', () => {
  it('stores the agent’s own split (201), numbered and counted; the artifact shows it; a second PUT replaces it (200)', async () => {
    const a = await artifact();
    const parts = [
      'Shipped v2.3 today 👩‍👩‍👧‍👦: 4x faster on large CSV files.',
      'Memory use: 2 GB → 150 MB. 日本語のテキストも。',
      'Notes: https://example.com/blog/2026/11/importer-v2-3-streaming-archives-instead-of-loading-them-whole #release',
    ];
    const created = await put(a.id, 'x', { parts, numbered: true });
    expect(created.response.status).toBe(201);
    const v = created.data!;
    expect(v.parts.map((p) => p.text)).toEqual(parts.map((p, i) => `${p} ${i + 1}/3`));
    for (const p of v.parts) expect(p.length).toBe(countLength('x', p.text));
    // The URL counts 23 on X whatever its length.
    expect(v.parts[2]!.length).toBe(countLength('x', 'Notes: ') + 23 + countLength('x', ' #release 3/3'));
    expect(v).toMatchObject({
      platform: 'x',
      limit: 280,
      counting: 'weighted',
      is_thread: true,
      numbered: true,
      origin: 'parts',
      publishable: true,
      problem: null,
    });

    const shown = await getArtifact(a.id);
    expect(shown.variants.map((x) => x.platform)).toEqual(['x']);
    expect(shown.variants[0]).toEqual(v);

    const replaced = await put(a.id, 'x', { parts: ['One post now.'] });
    expect(replaced.response.status).toBe(200);
    expect(replaced.data!.parts).toEqual([{ text: 'One post now.', length: 13 }]);
    expect(replaced.data!.is_thread).toBe(false);
    // Same body again: same variant (naturally idempotent).
    const again = await unwrap(put(a.id, 'x', { parts: ['One post now.'] }));
    expect({ ...again, updated_at: null }).toEqual({ ...replaced.data!, updated_at: null });
  });

  it('refuses a part over the limit with 422 naming body.parts[i], and stores nothing', async () => {
    const a = await artifact();
    const tooLong = 'A grapheme-heavy part 👩‍👩‍👧‍👦 '.repeat(20); // ~480 graphemes
    const e = await refusal(unwrap(put(a.id, 'bluesky', { parts: ['Fits.', tooLong] })));
    expect(e.status).toBe(422);
    expect(e.code).toBe('validation_failed');
    expect(e.message).toContain('body.parts[1]');
    expect(e.message).toContain('300');
    expect(await countRows(t.s.running.deps.db, 'ArtifactVariant', { artifactId: a.id })).toBe(0);
  });

  it('counts the numbering in the limit: a part that fits alone but not with " i/n" is refused', async () => {
    const a = await artifact();
    const exactly300 = 'x'.repeat(300);
    expect(await unwrap(put(a.id, 'bluesky', { parts: [exactly300, 'second'] }))).toMatchObject({ is_thread: true });
    const e = await refusal(unwrap(put(a.id, 'bluesky', { parts: [exactly300, 'second'], numbered: true })));
    expect(e.message).toContain('body.parts[0]');
    expect(e.message).toContain('1/2');
  });

  it('splits the agent’s text into a thread within the platform’s limit', async () => {
    const a = await artifact('ready', 'Short artifact text.');
    for (const platform of ['bluesky', 'x', 'mastodon', 'threads'] as const) {
      const v = await unwrap(put(a.id, platform, { text: LONG }));
      expect(v.origin).toBe('text');
      expect(v.fits_one_post).toBe(platform === 'mastodon' ? v.length <= 500 : false);
      for (const p of v.parts) expect(p.length).toBeLessThanOrEqual(PLATFORM_RULES[platform].limit);
      // The long URL is never cut.
      expect(
        v.parts.filter((p) =>
          p.text.includes('https://example.com/blog/2026/11/importer-v2-3-streaming-archives-instead-of-loading-them-whole?ref=announcement'),
        ),
      ).toHaveLength(1);
    }
    // X keeps two hashtags of the trailing block, Threads one.
    const shown = await getArtifact(a.id);
    const x = shown.variants.find((v) => v.platform === 'x')!;
    expect(x.text.endsWith('#release #opensource')).toBe(true);
    expect(
      shown.variants
        .find((v) => v.platform === 'threads')!
        .text.endsWith(
          'ありがとうございます。\n\nRelease notes: https://example.com/blog/2026/11/importer-v2-3-streaming-archives-instead-of-loading-them-whole?ref=announcement\n\n#release',
        ),
    ).toBe(true);
    expect(shown.variants.map((v) => v.platform)).toEqual(['bluesky', 'mastodon', 'threads', 'x']);
  });

  it('adds a target from the artifact’s own text with an empty body', async () => {
    const a = await artifact();
    const r = await put(a.id, 'linkedin', {});
    expect(r.response.status).toBe(201);
    expect(r.data).toMatchObject({
      platform: 'linkedin',
      origin: 'drafted',
      text: LONG.replace('#release #opensource #performance #importer', '#release #opensource #performance'),
      fits_one_post: true,
      is_thread: false,
      limit: 3000,
    });
  });

  it('refuses text with parts, a text that cannot be split, and an empty part', async () => {
    const a = await artifact();
    const both = await refusal(unwrap(put(a.id, 'x', { text: 'a', parts: ['a'] })));
    expect([both.status, both.message.startsWith('body.parts')]).toEqual([422, true]);
    const url = `https://example.com/${'very-long-path-segment/'.repeat(20)}`;
    const unsplittable = await refusal(unwrap(put(a.id, 'bluesky', { text: `See ${url} now` })));
    expect(unsplittable.status).toBe(422);
    expect(unsplittable.message).toMatch(
      /^body\.text cannot be posted on bluesky: ".*" cannot be split and alone counts \d+ \(graphemes\), over bluesky's limit of 300/,
    );
    const blank = await refusal(unwrap(put(a.id, 'x', { parts: ['ok', ' \n '] })));
    expect(blank.message).toContain('body.parts[1] is empty');
    // The schema's own check names an array item the same way.
    const empty = await refusal(unwrap(put(a.id, 'x', { parts: ['ok', ''] })));
    expect([empty.status, empty.message]).toEqual([422, 'body.parts[1] is empty']);
    expect(await countRows(t.s.running.deps.db, 'ArtifactVariant', { artifactId: a.id })).toBe(0);
  });

  it('changes variants only in review, ready or publish_failed: a draft is 409 retry_later, scheduled 409 pointing at unschedule, published and discarded 409', async () => {
    for (const [state, action] of [
      ['draft', 'retry_later'],
      ['scheduled', 'unschedule_artifact'],
      ['published', 'fetch_artifact'],
      ['discarded', 'fetch_artifact'],
    ] as const) {
      const a = await artifact(state);
      const e = await refusal(unwrap(put(a.id, 'x', { text: 'Hello' })));
      expect([e.status, e.code, e.suggestedAction]).toEqual([409, 'state_conflict', action]);
      if (state === 'scheduled') expect(e.suggestedEndpoint).toBe(`DELETE ${V1}/artifacts/${a.id}/schedule`);
    }
    // A failed publish with nothing live: any variant.
    const f = await artifact('publish_failed');
    expect((await unwrap(put(f.id, 'mastodon', { parts: ['Fixed, all of it.'] }))).parts).toHaveLength(1);
  });

  it('writes only under a compare-and-set on the artifact’s state (a publish that moved it first wins)', async () => {
    const deps = t.s.running.deps;
    const a = await artifact('published');
    const values = deriveVariant('x', 'Too late.', { numbered: false, origin: 'text', contentWarning: null });
    // The state check of the service passed earlier; the store's own check is what stops the write.
    expect(await storePutVariant(deps.db, { workspaceId: t.ws, artifactId: a.id, states: ['review', 'ready'], values, now: new Date() })).toBeNull();
    expect(await countRows(deps.db, 'ArtifactVariant', { artifactId: a.id })).toBe(0);
    const b = await artifact('ready');
    expect(await storePutVariant(deps.db, { workspaceId: 'another-workspace', artifactId: b.id, states: ['ready'], values, now: new Date() })).toBeNull();
    expect(await storePutVariant(deps.db, { workspaceId: t.ws, artifactId: b.id, states: ['ready'], values, now: new Date() })).toMatchObject({
      created: true,
    });
  });

  it('is 404 for an unknown artifact and 422 for a platform that is not a target', async () => {
    const missing = await refusal(unwrap(put('art_0000000000000000', 'x', { text: 'Hello' })));
    expect(missing.status).toBe(404);
    const a = await artifact();
    const r = await t.s
      .client()
      .PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform: 'rss' as TargetPlatform } }, body: {} });
    expect(r.response.status).toBe(422);
    expect(r.error?.error.message).toContain('platform');
  });
});

describe('publishableParts (the publishing seam)', () => {
  it('returns the variant’s parts, the artifact’s text without a variant, and refuses a variant that could not be split', async () => {
    const deps = t.s.running.deps;
    const a = await artifact('ready');
    expect(await publishableParts(deps, a, 'bluesky')).toEqual([LONG]);
    const v = await unwrap(put(a.id, 'bluesky', { text: LONG, numbered: true }));
    const parts = await publishableParts(deps, a, 'bluesky');
    expect(parts).toEqual(v.parts.map((p) => p.text));
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.at(-1)).toMatch(/ \d\/\d$/);

    const b = await artifact('ready', `Look: https://example.com/${'x'.repeat(400)}`);
    await insertVariants(deps.db, b, [deriveVariant('bluesky', b.text, { numbered: false, origin: 'drafted', contentWarning: null })], deps.clock.now());
    const e = await publishableParts(deps, b, 'bluesky').catch((err: unknown) => err as { status: number; message: string });
    expect(e).toMatchObject({ status: 409 });
    expect((e as { message: string }).message).toContain('cannot be split');
    const shown = await getArtifact(b.id);
    expect(shown.variants[0]).toMatchObject({ parts: [], fits_one_post: false, problem: expect.stringContaining('cannot be split') });
  });
});

describe('drafting with targets', () => {
  type DraftBody = { targets?: TargetPlatform[]; parent_artifact_id?: string };
  async function drafted(postId: string, body: DraftBody = {}) {
    const accepted = await unwrap(draftPost(t.s, postId, body));
    const { output } = await expectRunSucceeded(t.s.running.deps, accepted.run_id);
    return { artifact: await getArtifact(accepted.artifact_id), output };
  }

  it('writes one variant per target, each adapted and within its limit; the default is the pipeline’s platform', async () => {
    const { postId } = await pipelineWithPost();
    const { artifact: a, output } = await drafted(postId, { targets: ['x', 'mastodon', 'bluesky', 'linkedin', 'threads'] });
    expect(output?.variants).toEqual(['x', 'mastodon', 'bluesky', 'linkedin', 'threads']);
    expect(a.variants.map((v) => v.platform)).toEqual(['bluesky', 'linkedin', 'mastodon', 'threads', 'x']);
    for (const v of a.variants) {
      expect(v.origin).toBe('drafted');
      expect(v.problem).toBeNull();
      expect(v.parts.length).toBeGreaterThan(0);
      for (const p of v.parts) expect(p.length).toBeLessThanOrEqual(v.limit);
      expect(
        v.parts
          .map((p) => p.text)
          .join(' ')
          .replace(/\s+/g, ' '),
      ).toBe(v.text.replace(/\s+/g, ' '));
    }
    expect(a.variants.find((v) => v.platform === 'mastodon')!.text).toBe(a.text.trim());

    const plain = await drafted(postId);
    expect(plain.artifact.variants.map((v) => v.platform)).toEqual(['mastodon']);
  });

  it('gives a re-draft its own variants, for its parent’s targets unless it names others', async () => {
    const { postId } = await pipelineWithPost();
    const { artifact: parent } = await drafted(postId, { targets: ['x', 'bluesky'] });
    await unwrap(put(parent.id, 'x', { parts: ['The parent’s own X post.'] }));
    const { artifact: child } = await drafted(postId, { parent_artifact_id: parent.id });
    expect(child.genealogy.parent_artifact_id).toBe(parent.id);
    expect(child.variants.map((v) => [v.platform, v.origin])).toEqual([
      ['bluesky', 'drafted'],
      ['x', 'drafted'],
    ]);
    expect(child.variants.find((v) => v.platform === 'x')!.text).toBe(child.text.trim());
    // The parent's variants are its own, untouched.
    expect((await getArtifact(parent.id)).variants.find((v) => v.platform === 'x')!.parts).toEqual([{ text: 'The parent’s own X post.', length: 24 }]);
    const { artifact: other } = await drafted(postId, { parent_artifact_id: parent.id, targets: ['threads'] });
    expect(other.variants.map((v) => v.platform)).toEqual(['threads']);
    const rows = await findRows(t.s.running.deps.db, 'ArtifactVariant', { artifactId: child.id });
    expect(rows.map((r) => r.platform).sort()).toEqual(['bluesky', 'x']);
  });

  it('defaults to no variants for a feed, and to the format of the latest export for an archive', async () => {
    const feed = await pipelineWithPost('https://blog.example.com/feed.xml', 'rss');
    expect((await drafted(feed.postId)).artifact.variants).toEqual([]);

    const archive = await pipelineWithPost('ada-x-export', 'archive');
    await insertRow(t.s.running.deps.db, 'Import', {
      id: 'imp_variants_x',
      workspaceId: t.ws,
      handle: 'ada-x-export',
      idempotencyKey: 'variants-test-key',
      requestHash: 'h',
      format: 'x',
      container: 'zip',
      status: 'ready',
      sizeBytes: 10,
      sha256: 's',
      blobId: null,
      includeNonPublic: 0,
      summary: '{}',
      ownUserId: null,
      createdAt: new Date(),
    });
    expect((await drafted(archive.postId)).artifact.variants.map((v) => v.platform)).toEqual(['x']);
  });

  it('refuses an unknown target with 422 naming targets', async () => {
    const { postId } = await pipelineWithPost();
    const r = await t.s.client().POST(`${V1}/posts/{id}/draft`, {
      params: { path: { id: postId } },
      body: { targets: ['myspace' as TargetPlatform], idempotency_key: newIdempotencyKey() },
    });
    expect(r.response.status).toBe(422);
    expect(r.error?.error.message).toContain('targets');
  });
});

describe('inbox and diagnose flag variants that cannot be posted', () => {
  const inbox = (pipelineId: string) => unwrap(t.s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pipelineId } } }));
  const diagnose = (pipelineId: string) => unwrap(t.s.client().GET(`${V1}/pipelines/{id}/diagnose`, { params: { path: { id: pipelineId } } }));

  it('a variant that could not be split: an inbox item and a diagnose warning pointing at PUT …/variants/{platform}; gone once the agent sends parts', async () => {
    const deps = t.s.running.deps;
    const a = await artifact('ready', `Look 👀: https://example.com/${'長'.repeat(400)}`);
    await insertVariants(deps.db, a, [deriveVariant('bluesky', a.text, { numbered: false, origin: 'drafted', contentWarning: null })], deps.clock.now());
    const endpoint = `PUT ${V1}/artifacts/${a.id}/variants/bluesky`;
    const item = (await inbox(a.pipelineId)).data.find((i) => i.id === `flagged_anomaly:variant_unpostable:${a.id}:bluesky`);
    expect(item).toMatchObject({
      kind: 'flagged_anomaly',
      artifact_id: a.id,
      anomaly: { code: 'variant_unpostable', message: expect.stringContaining('could not be split') },
      suggested_action: 'put_variant',
      suggested_endpoint: endpoint,
    });
    const report = await diagnose(a.pipelineId);
    expect(report.issues.find((i) => i.code === 'variant_unpostable')).toMatchObject({
      severity: 'warning',
      suggested_action: 'put_variant',
      suggested_endpoint: endpoint,
      message: expect.stringContaining(`${a.id} on bluesky`),
    });

    await unwrap(put(a.id, 'bluesky', { parts: ['Look 👀:', 'The link is too long for Bluesky; it is on the blog.'] }));
    expect((await inbox(a.pipelineId)).data.some((i) => i.anomaly?.code === 'variant_unpostable')).toBe(false);
    expect((await diagnose(a.pipelineId)).issues.some((i) => i.code === 'variant_unpostable')).toBe(false);
  });

  it('a stored part over the limit (the text changed after the split) is flagged with the part', async () => {
    const deps = t.s.running.deps;
    const a = await artifact('review', 'Short.');
    const over = `${'東京 '.repeat(260)}🎉`;
    await storePutVariant(deps.db, {
      workspaceId: t.ws,
      artifactId: a.id,
      states: ['review'],
      values: { platform: 'mastodon', text: over, parts: ['Fine first part.', over], numbered: false, origin: 'parts', problem: null },
      now: deps.clock.now(),
    });
    const item = (await inbox(a.pipelineId)).data.find((i) => i.id === `flagged_anomaly:variant_unpostable:${a.id}:mastodon`);
    expect(item?.anomaly?.message).toContain('part 2 of 2 counts 781');
    expect(item?.suggested_endpoint).toBe(`PUT ${V1}/artifacts/${a.id}/variants/mastodon`);
  });

  it('a scheduled artifact with variants for platforms none of its destinations is on: diagnose says only its destinations’ variants go out (info)', async () => {
    const deps = t.s.running.deps;
    const a = await artifact('scheduled', 'Going out on Mastodon; the X and LinkedIn texts are for export.');
    await insertVariants(
      deps.db,
      a,
      (['mastodon', 'x', 'linkedin'] as const).map((p) => deriveVariant(p, a.text, { numbered: false, origin: 'drafted', contentWarning: null })),
      deps.clock.now(),
    );
    const report = await diagnose(a.pipelineId);
    const issue = report.issues.find((i) => i.code === 'variant_not_published');
    expect(issue).toMatchObject({ severity: 'info', suggested_action: 'fetch_artifact', suggested_endpoint: `GET ${V1}/artifacts/${a.id}` });
    expect(issue?.message).toContain(`${a.id} (linkedin), ${a.id} (x)`);
    expect(issue?.message).not.toContain('(mastodon)');
  });
});
