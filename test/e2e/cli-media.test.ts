// Media through `cpa`: `media upload FILE --alt TEXT`, `posts draft --media FILE --alt TEXT`
// (the upload goes after the media the draft carries), `artifacts media` (reorder, alt text) with
// the media table, and `cpa mcp`'s upload_media_from_path, which only the stdio server can offer.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { upsertPost } from '../../server/store/posts.js';
import { photoWithGps } from '../support/images.js';
import { V1 } from '../support/api.js';
import { workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { cpaBin, cpaEnv, cpaIn, expectExit, json, projectRoot } from './support.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let s: TestServer;
let dir: string;
let postId: string;
const env = () => ({ env: { CPA_BASE_URL: s.url, CPA_TOKEN: s.token } });

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(path.join(tmpdir(), 'cpa-media-'));
  writeFileSync(path.join(dir, 'launch.jpg'), await photoWithGps(60, 40));
  writeFileSync(path.join(dir, 'notes.jpg'), 'these are notes, not a picture');
  const pl = await unwrap(
    s
      .client()
      .POST(`${V1}/pipelines/from-intent`, { body: { handle: '@ada@mastodon.example', intent: 'Release posts', idempotency_key: newIdempotencyKey() } }),
  );
  const ws = await workspaceOf(s.running.deps, s.token);
  const chart = { type: 'image', url: 'https://files.mastodon.example/media/chart.png', archive_path: null, alt_text: null, width: 1600, height: 900 };
  ({
    post: { id: postId },
  } = await upsertPost(s.running.deps.db, {
    id: 'post_cli0000000000001',
    workspaceId: ws,
    pipelineId: pl.pipeline_id,
    platform: 'mastodon',
    externalId: 'cli-media-1',
    url: 'https://mastodon.example/@ada/1',
    text: 'Shipped v2.3 🚀 the importer is 4x faster',
    publishedAt: new Date('2026-11-01T10:00:00Z'),
    likes: 10,
    reposts: 2,
    replies: 1,
    quotes: 0,
    media: JSON.stringify([chart]),
  }));
});
afterAll(async () => {
  await s?.stop();
});

describe('cpa media', () => {
  it('uploads an image with its alt text, and refuses a file that is not one', async () => {
    const r = await cpaIn(['media', 'upload', path.join(dir, 'launch.jpg'), '--alt', 'Ada at the launch, 🎂 in hand', '--json'], env());
    expectExit(r, 0);
    expect(json(r)).toMatchObject({ content_type: 'image/jpeg', width: 40, height: 60, alt_text: 'Ada at the launch, 🎂 in hand', in_use: false });
    const bad = await cpaIn(['media', 'upload', path.join(dir, 'notes.jpg')], env());
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('validation_failed');
    expect(bad.stderr).toContain('is not a JPEG, PNG, WebP or GIF image');
  });

  it('drafts with --media/--alt after the carried media, shows them in a table, and sets alt text with artifacts media', async () => {
    const r = await cpaIn(['posts', 'draft', postId, '--media', path.join(dir, 'launch.jpg'), '--alt', 'Ada at the launch', '--wait', '--json'], env());
    expectExit(r, 0);
    const artifactId = json<{ artifact_id: string }>(r).artifact_id;
    const got = await cpaIn(['artifacts', 'get', artifactId], env());
    expectExit(got, 0);
    expect(got.stdout).toMatch(new RegExp(`^1\t${postId}:0\timage\t1600×900\tMISSING$`, 'm'));
    expect(got.stdout).toMatch(/^2\tmed_[0-9a-f]+\timage\t40×60\tAda at the launch$/m);
    expect(got.stderr).toContain('missing_alt_text');

    const a = await unwrap(s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id: artifactId } } }));
    const upload = a.media![1]!.id;
    const set = await cpaIn(
      ['artifacts', 'media', artifactId, upload, `${postId}:0`, '--alt', `${postId}:0=Bar chart: CI time per week, 38 → 17 minutes`],
      env(),
    );
    expectExit(set, 0);
    expect(set.stdout).toMatch(new RegExp(`^1\t${upload}\t`, 'm'));
    expect(set.stdout).toMatch(/^2\tpost_\S+\timage\t1600×900\tBar chart: CI time per week, 38 → 17 minutes$/m);
    expect(set.stderr).not.toContain('missing_alt_text');
  });
});

describe('cpa mcp', () => {
  it('uploads an image from a path on its own machine (upload_media_from_path), which /api/mcp cannot offer', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cpaBin, 'mcp'],
      env: cpaEnv({ CPA_BASE_URL: s.url, CPA_TOKEN: s.token }) as Record<string, string>,
      cwd: projectRoot,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['upload_media_from_path', 'set_artifact_media', 'get_media']));
      expect(names).not.toContain('upload_media');
      const r = (await client.callTool({
        name: 'upload_media_from_path',
        arguments: { path: path.join(dir, 'launch.jpg'), alt_text: 'Ada at the launch' },
      })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(r.isError).toBeFalsy();
      expect(JSON.parse(r.content[0]!.text)).toMatchObject({ alt_text: 'Ada at the launch', content_type: 'image/jpeg' });
    } finally {
      await client.close();
    }
  });
});
