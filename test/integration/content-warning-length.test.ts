// A content warning is counted where the platform counts it (issue #30): Mastodon's
// StatusLengthValidator counts `spoiler_text` and the text together in 500; Bluesky has no content
// warning, so the first post opens with a `CW: <warning>` line, counted in its 300. A draft that
// fits without its warning but not with it is refused when its parts are edited, split so that its
// first part fits with it, refused when a publish is requested (now or for later), and refused by
// the run before it posts anything at the scheduled time. The lengths the variant reports are the
// lengths of what the fakes receive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { asAccepted, getArtifact, publishAndWait, publishingWorld, publishRequest, V1 } from '../support/api.js';
import { countRows, findRows, updateRows } from '../support/rows.js';
import { waitForRun } from '../support/runs.js';
import { seedArtifact } from '../support/seed.js';

type World = Awaited<ReturnType<typeof publishingWorld>>;
let w: World;

beforeAll(async () => {
  w = await publishingWorld();
});

afterAll(async () => {
  await w?.stop();
});

const graphemes = (s: string) => [...new Intl.Segmenter().segment(s)].length;

// Realistic words (a ZWJ family and a flag among them), to a given number of grapheme clusters.
function words(n: number, tag: string): string {
  const base = `${tag}: the finale 👨‍👩‍👧 was worth the wait, and the last scene in 🇫🇷 Paris made the whole season. `;
  let out = '';
  while (graphemes(out) < n) out += base;
  return [...new Intl.Segmenter().segment(out)]
    .slice(0, n)
    .map((g) => g.segment)
    .join('')
    .replace(/\s$/, '.');
}

const WARNING = 'Spoilers: season 4 finale'; // 25 grapheme clusters

async function artifactWith(platform: 'mastodon' | 'bluesky', text: string, contentWarning: string | null, state = 'ready') {
  const p = w.pipelines[platform];
  return seedArtifact(w.s.running.deps, { workspaceId: w.workspaceId, pipelineId: p.id, postId: p.postId, state, text, contentWarning });
}

const putVariant = (id: string, platform: 'mastodon' | 'bluesky', body: { text?: string; parts?: string[] }) =>
  w.s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id, platform } }, body });

const statusesOf = (tag: string) => w.mastodon.state.posted.filter((p) => p.text.includes(tag));

describe('Mastodon counts the content warning with the text', () => {
  it('refuses a part that fits only without its warning (422 body.parts[0]); the same part without a warning is taken', async () => {
    const text = words(490, 'm-edit');
    const warned = await artifactWith('mastodon', text, WARNING, 'review');
    const refused = await putVariant(warned.id, 'mastodon', { parts: [text] });
    expect(refused.response.status).toBe(422);
    expect(refused.error?.error.message).toBe(
      `body.parts[0] counts ${490 + graphemes(WARNING)} (graphemes) with its content warning, over mastodon's limit of 500.`,
    );
    expect(await countRows(w.s.running.deps.db, 'ArtifactVariant', { artifactId: warned.id })).toBe(0);

    const plain = await artifactWith('mastodon', text, null, 'review');
    const taken = await unwrap(putVariant(plain.id, 'mastodon', { parts: [text] }));
    expect(taken).toMatchObject({ length: 490, fits_one_post: true, parts: [{ text, length: 490 }] });
  });

  it('splits so that the first part fits with the warning, reports the lengths with it, and posts what it reported', async () => {
    const text = words(490, 'm-split');
    const a = await artifactWith('mastodon', text, WARNING);
    const v = await unwrap(putVariant(a.id, 'mastodon', {}));
    expect(v).toMatchObject({ length: 490 + graphemes(WARNING), limit: 500, fits_one_post: false, is_thread: true, problem: null });
    expect(v.parts[0]!.length).toBe(graphemes(WARNING) + graphemes(v.parts[0]!.text));
    expect(v.parts[0]!.length).toBeLessThanOrEqual(500);
    // The replies carry no warning: counted without it.
    for (const p of v.parts.slice(1)) expect(p.length).toBe(graphemes(p.text));
    // The artifact shows the same variant.
    expect((await getArtifact(w.s, a.id)).variants.find((x) => x.platform === 'mastodon')).toEqual(v);

    const { run } = await publishAndWait(w.s, a.id);
    expect(run).toMatchObject({ status: 'succeeded' });
    const posted = statusesOf('m-split');
    expect(posted.map((p) => p.text)).toEqual(v.parts.map((p) => p.text));
    expect(posted[0]!.spoilerText).toBe(WARNING);
    expect(posted.slice(1).every((p) => p.spoilerText === undefined)).toBe(true);
    expect(posted.map((p) => graphemes(`${p.spoilerText ?? ''}${p.text}`))).toEqual(v.parts.map((p) => p.length));
  });

  it('refuses a publish (now or for later) whose text fits only without the warning: 409, nothing queued, nothing posted', async () => {
    const text = words(490, 'm-publish');
    const a = await artifactWith('mastodon', text, WARNING);
    const runs = await countRows(w.s.running.deps.db, 'Run', { kind: 'publish' });
    for (const body of [{}, { at: new Date(Date.now() + 3_600_000).toISOString() }]) {
      const res = await publishRequest(w.s, a.id, body);
      expect(res.response.status).toBe(409);
      expect(res.error?.error.message).toMatch(/part 1\): the text counts 515 \(graphemes\) with its content warning, over mastodon's limit of 500/);
    }
    expect(await countRows(w.s.running.deps.db, 'Run', { kind: 'publish' })).toBe(runs);
    expect((await getArtifact(w.s, a.id)).state).toBe('ready');
    expect(statusesOf('m-publish')).toEqual([]);
  });

  it('fails at the scheduled time, before posting anything, a stored part that does not fit with the warning', async () => {
    const text = words(490, 'm-due');
    const a = await artifactWith('mastodon', text, WARNING);
    const v = await unwrap(putVariant(a.id, 'mastodon', {}));
    expect(v.is_thread).toBe(true);
    const accepted = asAccepted(await unwrap(publishRequest(w.s, a.id, { at: new Date(Date.now() + 3_600_000).toISOString() })));
    // A variant stored before the warning was counted: the whole text as one part. Then the time comes.
    const db = w.s.running.deps.db;
    await updateRows(db, 'ArtifactVariant', { artifactId: a.id, platform: 'mastodon' }, { parts: JSON.stringify([text]) });
    await updateRows(db, 'Run', { id: accepted.run.run_id }, { runAfter: new Date() });
    const run = await waitForRun(w.s.running.deps, accepted.run.run_id);
    expect(run).toMatchObject({ status: 'failed', errorCode: 'text_unfit' });
    expect(run.errorMessage).toMatch(/: Part 1 of 1 cannot be posted on mastodon: the text counts 515 \(graphemes\) with its content warning/);
    expect(w.mastodon.fake.requests.filter((r) => r.method === 'POST' && r.body.toString().includes('m-due'))).toEqual([]);
    expect((await getArtifact(w.s, a.id)).state).toBe('publish_failed');
  });
});

describe('Bluesky counts the `CW:` line it posts', () => {
  it('refuses a part that fits only without the line, splits so that the first part fits with it, and posts what it reported', async () => {
    const text = words(290, 'b-split');
    const a = await artifactWith('bluesky', text, WARNING);
    const line = `CW: ${WARNING}\n\n`;
    const refused = await putVariant(a.id, 'bluesky', { parts: [text] });
    expect(refused.response.status).toBe(422);
    expect(refused.error?.error.message).toBe(
      `body.parts[0] counts ${290 + graphemes(line)} (graphemes) with its content warning, over bluesky's limit of 300.`,
    );

    const v = await unwrap(putVariant(a.id, 'bluesky', {}));
    expect(v).toMatchObject({ length: 290 + graphemes(line), fits_one_post: false, is_thread: true });
    expect(v.parts[0]!.length).toBe(graphemes(line + v.parts[0]!.text));
    expect(v.parts[0]!.length).toBeLessThanOrEqual(300);

    const { run } = await publishAndWait(w.s, a.id);
    expect(run).toMatchObject({ status: 'succeeded' });
    // What the PDS received: the first part under its `CW:` line, each counting what the variant said.
    const records = [...w.bluesky.state.records.values()].map((r) => r.text);
    const posted = [line + v.parts[0]!.text, ...v.parts.slice(1).map((p) => p.text)];
    for (const text of posted) expect(records).toContain(text);
    expect(posted.map(graphemes)).toEqual(v.parts.map((p) => p.length));
  });

  it('refuses a publish whose text fits only without the line: 409, nothing queued', async () => {
    const a = await artifactWith('bluesky', words(290, 'b-publish'), WARNING);
    const res = await publishRequest(w.s, a.id);
    expect(res.response.status).toBe(409);
    expect(res.error?.error.message).toContain(
      `the text counts ${290 + graphemes(`CW: ${WARNING}\n\n`)} (graphemes) with its content warning, over bluesky's limit of 300`,
    );
    expect(await findRows(w.s.running.deps.db, 'Run', { kind: 'publish', pipelineId: w.pipelines.bluesky.id })).not.toContainEqual(
      expect.objectContaining({ input: expect.stringContaining(a.id) }),
    );
  });
});
