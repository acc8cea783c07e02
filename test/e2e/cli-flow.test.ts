// A whole agent workflow through the real `cpa` binary: connect an archive account, create the
// pipeline and wait for its ingest, list the ingested posts, draft with --wait, approve and
// publish; fetch a page (from a local HTTPS fake) with and without an extraction schema.
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reply, startFake, type Fake } from '../support/https-fake.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { cpa, expectExit, json, projectRoot } from './support.js';

// Subprocesses: generous limits for a loaded machine (each call takes well under a second when idle).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let s: TestServer;
let fake: Fake;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'cpa-flow-'));

const PAGE = readFileSync(path.join(projectRoot, 'test/fixtures/pages/changelog.html'));

beforeAll(async () => {
  fake = await startFake({ routes: { '/gone': reply(410, 'gone') }, handler: reply(200, PAGE, 'text/html; charset=utf-8') });
  s = await startTestServer({ env: fake.outboundEnv });
});
afterAll(async () => {
  await s?.stop();
  await fake?.close();
});

const run = (args: string[], input?: string) => cpa(['--base-url', s.url, '--token', s.token, ...args], { input });

describe('from an archive to a published draft', () => {
  it('connects, ingests, lists, drafts, approves, is refused without a destination, and records a post made by hand', async () => {
    const archive = readFileSync(path.join(projectRoot, 'test/fixtures/archives/mastodon-outbox.json'), 'utf8');
    // the credential (here: the export file) comes on stdin, not on the command line
    const connected = await run(
      ['accounts', 'connect', '--platform', 'archive', '--handle', 'ada-export', '--auth-material-file', '-', '--secondary-auth', 'mastodon', '--json'],
      archive,
    );
    expectExit(connected, 0);
    expect(json(connected)).toMatchObject({ result: 'added', account: { platform: 'archive', handle: 'ada-export', status: 'active' } });

    const created = await run(['pipelines', 'create', '--handle', 'ada-export', '--intent', 'Release notes for LinkedIn', '--wait', '--json']);
    expectExit(created, 0);
    const { pipeline_id, run: ingest } = json<{ pipeline_id: string; run: { status: string; kind: string } }>(created);
    expect(ingest).toMatchObject({ kind: 'ingest', status: 'succeeded' });

    const posts = json<{ data: Array<{ id: string; text: string }> }>(await run(['posts', 'list', pipeline_id, '--all', '--json']));
    expect(posts.data.length).toBeGreaterThan(0);

    const drafted = await run(['posts', 'draft', posts.data[0]!.id, '--style-reference', 'Short sentences. No emoji.', '--wait']);
    expectExit(drafted, 0);
    const artifactId = /^artifact_id\t(\S+)$/m.exec(drafted.stdout)?.[1];
    expect(artifactId).toMatch(/^art_/);
    expect(drafted.stdout).toMatch(/^status\tsucceeded$/m);

    const [pipeline, inReview] = await Promise.all([
      run(['pipelines', 'get', pipeline_id, '--json']),
      run(['posts', 'list', pipeline_id, '--has-artifact', '--json']),
    ]);
    expect(json(pipeline)).toMatchObject({ artifact_count: 1, post_count: posts.data.length });
    expect(json<{ data: Array<{ id: string }> }>(inReview).data.map((p) => p.id)).toEqual([posts.data[0]!.id]);

    expectExit(await run(['artifacts', 'transition', artifactId!, '--to', 'ready']), 0);
    // An export has nowhere to post by itself: publishing without a destination is refused (no account that posts here)...
    const refused = await run(['artifacts', 'publish', artifactId!, '--json']);
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: 'credential_missing', suggested_action: 'connect_account' } });
    // ...and a post made by hand is recorded with its address.
    const url = 'https://x.com/ada_lovelace/status/1859951771532320873';
    const published = json(await run(['artifacts', 'mark-published', artifactId!, '--platform', 'x', '--url', url, '--json']));
    expect(published).toMatchObject({ id: artifactId, state: 'published', published_at: expect.any(String), published_url: url });
    const shown = await run(['artifacts', 'get', artifactId!]);
    expect(shown.stdout).not.toMatch(/published here/);
  });
});

describe('fetch and extraction schemas', () => {
  it('fetches a page as Markdown, and as fields through a schema stored from a file', async () => {
    const url = `${fake.url}/releases/v2-3`;
    const md = await run(['fetch', url, '--mode', 'markdown']);
    expectExit(md, 0);
    expect(md.stdout).toMatch(/^final_url\thttps:\/\/127\.0\.0\.1:\d+\/releases\/v2-3$/m);
    expect(md.stdout).toMatch(/\n#+ /); // the Markdown follows the table

    const definition = path.join(tmp, 'changelog.json');
    writeFileSync(definition, JSON.stringify({ description: 'Release notes', fields: { heading: { selectors: [{ selector: 'h1' }] } } }));
    const put = await run(['schemas', 'put', 'cli-changelog', '--file', definition, '--json']);
    expectExit(put, 0);
    expect(json(put)).toMatchObject({ id: 'cli-changelog', builtin: false });
    const list = json<{ data: Array<{ id: string; builtin: boolean }> }>(await run(['schemas', 'list', '--json']));
    expect(list.data.map((d) => d.id)).toEqual(expect.arrayContaining(['article', 'cli-changelog']));

    const fields = await run(['fetch', url, '--schema', 'cli-changelog', '--json']);
    expectExit(fields, 0);
    expect(json<{ mode: string; fields: Record<string, unknown> }>(fields)).toMatchObject({ mode: 'css', fields: { heading: expect.stringMatching(/\S/) } });

    expectExit(await run(['schemas', 'delete', 'cli-changelog']), 0);
    const gone = await run(['schemas', 'delete', 'cli-changelog']);
    expectExit(gone, 7);
    const builtin = await run(['schemas', 'delete', 'article']);
    expectExit(builtin, 8);
  });

  it("shows the page's own status when the page cannot be fetched", async () => {
    const gone = await run(['fetch', `${fake.url}/gone`]);
    expectExit(gone, 9);
    expect(gone.stderr).toContain('Error: backend_unavailable (HTTP 502): The page answered HTTP 410.');
    expect(gone.stderr).toContain('Upstream answered: HTTP 410');
    // With --json the error report goes to stderr too, as JSON.
    const asJson = await run(['fetch', `${fake.url}/gone`, '--json']);
    expectExit(asJson, 9);
    expect(JSON.parse(asJson.stderr)).toMatchObject({ error: { code: 'backend_unavailable', upstream_status: 410 }, status: 502 });
  });
});
