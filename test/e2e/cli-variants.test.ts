// `cpa artifacts variant` and the thread preview of `cpa artifacts get`, through the real binary.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBlueskyFake } from '../support/platforms.js';
import { photoWithGps } from '../support/images.js';
import { cliServer, expectExit, json } from './support.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

// A Bluesky fake: an account to connect, to be a pipeline's default destination.
let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;
beforeAll(async () => {
  bluesky = await startBlueskyFake();
});
afterAll(async () => {
  await bluesky?.fake.close();
});
const t = cliServer(() => ({ ...bluesky.fake.outboundEnv, ...bluesky.env }));

const TEXT = [
  'Shipped v2.3 of the importer today 👩‍👩‍👧‍👦: it is 4x faster on large CSV files, because rows are streamed instead of loaded whole.',
  'Memory use dropped from 2 GB to 150 MB. Thanks @ada@fosstodon.org for the report that started it.',
  '日本語のユーザーからも報告がありました。ありがとうございます。',
  'Release notes: https://example.com/blog/2026/11/importer-v2-3-streaming-archives-instead-of-loading-them-whole #release',
].join('\n\n');

describe('cpa artifacts variant / get', () => {
  it('splits a text into a numbered thread and previews each post with its length against the limit', async () => {
    const { artifactId } = await t.artifact('review');
    const set = await t.run(['artifacts', 'variant', artifactId, 'bluesky', '--text', TEXT, '--numbered']);
    expectExit(set, 0);
    // never "published here": the variant says what publishing it takes (issue 23)
    expect(set.stdout).toMatch(
      /^── bluesky: thread of 2, \d+\/300 graphemes, text, can be published \(name a destination with --to, or set the pipeline's: cpa pipelines destinations\)$/m,
    );
    expect(set.stdout).not.toContain('published here');
    expect(set.stdout).toMatch(/^\[1\/2\] \d+\/300$/m);
    expect(set.stdout).toMatch(/^\[2\/2\] \d+\/300$/m);
    expect(set.stdout).toMatch(/^ {2}Release notes: https:\/\/example\.com\/\S+ #release 2\/2$/m);

    const own = await t.run(['artifacts', 'variant', artifactId, 'x', '--part', 'First post 🇫🇷.', '--part', '日本語の二番目。', '--json']);
    expectExit(own, 0);
    expect(json(own)).toMatchObject({
      platform: 'x',
      origin: 'parts',
      parts: [
        { text: 'First post 🇫🇷.', length: 14 },
        { text: '日本語の二番目。', length: 16 },
      ],
      publishable: true,
    });

    const get = await t.run(['artifacts', 'get', artifactId]);
    expectExit(get, 0);
    expect(get.stdout).toMatch(/^variants\tbluesky, x$/m);
    expect(get.stdout).toMatch(
      /^── x: thread of 2, 32\/280 weighted, parts, can be published \(name a destination with --to, or set the pipeline's: cpa pipelines destinations\)$/m,
    );
    expect(get.stdout).toMatch(/^\[2\/2\] 16\/280\n {2}日本語の二番目。$/m);
    const asJson = json<{ variants: Array<{ platform: string }> }>(await t.run(['artifacts', 'get', artifactId, '--json']));
    expect(asJson.variants.map((v) => v.platform)).toEqual(['bluesky', 'x']);
  });

  it("names the pipeline's default destinations as where a variant goes, never asking for --to when the pipeline has them", async () => {
    const { artifactId, pipelineId } = await t.artifact('review');
    expectExit(
      await t.spawn(['accounts', 'connect', '--platform', 'bluesky', '--handle', 'ada.bsky.social', '--auth-material-file', '-'], {
        input: bluesky.state.appPassword,
      }),
      0,
    );
    expectExit(await t.run(['pipelines', 'destinations', pipelineId, '--to', 'bluesky:ada.bsky.social']), 0);
    const set = await t.run(['artifacts', 'variant', artifactId, 'bluesky', '--text', 'Shipped.']);
    expectExit(set, 0);
    expect(set.stdout).toMatch(
      /^── bluesky: one post, \d+\/300 graphemes, text, publishing sends it to ada\.bsky\.social \(the pipeline's default destination\)$/m,
    );
    expectExit(await t.run(['artifacts', 'variant', artifactId, 'mastodon', '--text', 'Shipped.']), 0);
    const get = await t.run(['artifacts', 'get', artifactId]);
    expectExit(get, 0);
    expect(get.stdout).not.toContain('name a destination with --to)');
    expect(get.stdout).toMatch(/^── bluesky: .*publishing sends it to ada\.bsky\.social \(the pipeline's default destination\)$/m);
    expect(get.stdout).toMatch(/^── mastodon: .*not among the pipeline's default destinations \(bluesky:ada\.bsky\.social\): name one with --to$/m);
  });

  it('shows which images each part of a publishable thread carries (4 with part 1, the rest with part 2), and marks an image without alt text', async () => {
    const { artifactId } = await t.artifact('review');
    expectExit(await t.run(['artifacts', 'variant', artifactId, 'bluesky', '--part', 'Five pictures 📸 1/2', '--part', 'And the last one 2/2']), 0);
    const dir = mkdtempSync(path.join(tmpdir(), 'cpa-images-'));
    const files = await Promise.all(
      [0, 1, 2, 3, 4].map(async (i) => {
        const f = path.join(dir, `photo-${i}.jpg`);
        writeFileSync(f, await photoWithGps(30 + i, 20));
        return f;
      }),
    );
    const alts = files.slice(0, 4).flatMap((f, i) => ['--alt', `${f}=Photo ${i + 1}: 東京 at night 🌃`]);
    expectExit(await t.run(['artifacts', 'media', artifactId, ...files, ...alts]), 0);
    const ids = json<{ media: Array<{ id: string }> }>(await t.run(['artifacts', 'get', artifactId, '--json'])).media.map((m) => m.id);
    const get = await t.run(['artifacts', 'get', artifactId]);
    expectExit(get, 0);
    expect(get.stdout).toContain(`Five pictures 📸 1/2\n  + images: ${ids.slice(0, 4).join(', ')}\n`);
    expect(get.stdout).toContain(`And the last one 2/2\n  + images: ${ids[4]} (NO ALT TEXT)`);
  });

  it('reports a part over the limit with the field, and refuses --text with --part', async () => {
    const { artifactId } = await t.artifact('ready');
    const over = await t.run(['artifacts', 'variant', artifactId, 'x', '--part', 'ok', '--part', '日本語'.repeat(50)]);
    expectExit(over, 4);
    expect(over.stderr).toContain('body.parts[1] counts 300 (weighted), over x');
    const both = await t.run(['artifacts', 'variant', artifactId, 'x', '--part', 'a', '--text', 'b']);
    expectExit(both, 2);
    const added = await t.run(['artifacts', 'variant', artifactId, 'linkedin']);
    expectExit(added, 0);
    expect(added.stdout).toMatch(
      /^── linkedin: one post, \d+\/3000 utf16_code_units, drafted, can be published \(name a destination with --to, or set the pipeline's: cpa pipelines destinations\)$/m,
    );
  });

  it('drafts with --target and shows one variant per target', async () => {
    const { postIds } = await t.pipelineWithPosts(1);
    const drafted = await t.run(['posts', 'draft', postIds[0]!, '--target', 'x', 'threads', '--wait', '--json']);
    expectExit(drafted, 0);
    const { artifact_id } = json<{ artifact_id: string }>(drafted);
    const a = json<{ variants: Array<{ platform: string; origin: string }> }>(await t.run(['artifacts', 'get', artifact_id, '--json']));
    expect(a.variants.map((v) => [v.platform, v.origin])).toEqual([
      ['threads', 'drafted'],
      ['x', 'drafted'],
    ]);
    expectExit(await t.run(['posts', 'draft', postIds[0]!, '--target', 'myspace']), 2);
  });
});
