// Runs the README's shell examples as written, so that the first screen a newcomer reads can
// never drift from the code again. Each ```sh block marked with the comment
// `<!-- readme-test: NAME -->` on the line before its fence runs with bash (`set -euo pipefail`)
// against a fresh instance and the platform fakes, and `EFFECTS[NAME]` then checks what it must
// have done (not only its exit code: what was imported, connected, posted). A marked block without
// an entry in EFFECTS fails this test: mark a new block, then say what it does here.
//
// Only what must differ on a test machine is substituted, each by a documented means:
//   - the server's address: `CPA_BASE_URL` for `cpa`, and `http://127.0.0.1:8787` in the text
//     (curl) replaced by the test server's;
//   - the token: `DATA_DIR` of the test server, where `cpa token` reads it;
//   - the platforms: `mastodon.social` in a handle becomes the Mastodon fake's `127.0.0.1:PORT`
//     (a handle names its instance), Bluesky goes to its fake through `BLUESKY_SERVICE_URL`, X,
//     LinkedIn and Threads to theirs (test/support/fakes/, whose accounts are @ada, ada-lovelace
//     and @ada) through `X_API_BASE_URL`, `LINKEDIN_API_BASE_URL` and `THREADS_API_BASE_URL`, all
//     reached through `OUTBOUND_ALLOW_HOSTS` and `OUTBOUND_EXTRA_CA_FILE`;
//   - the files a reader has: the X archive (generated, at ~/Downloads and in the working
//     directory, HOME being a temporary one), `mastodon-token.txt`, `bluesky-app-password.txt`,
//     `x-access-token.txt`, `linkedin-access-token.txt` and `threads-access-token.txt`, and the
//     credentials written inline (`MASTODON_TOKEN`, `BLUESKY_APP_PASSWORD`) replaced by the fakes';
//   - `npx cpa` runs the bin directly (NPX_CPA_SHIM), leaving npm's start-up out; a bare `cpa`
//     is not found, as in a reader's shell (PATH without node_modules/.bin).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { writeZip, xArchive } from '../support/exports.js';
import { startLinkedInFake } from '../support/fakes/linkedin.js';
import { startThreadsFake } from '../support/fakes/threads.js';
import { startXFake } from '../support/fakes/x.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { startBlueskyFake, startMastodonFake } from '../support/platforms.js';
import { startTestServer } from '../support/server.js';
import { expectRunSucceeded } from '../support/runs.js';
import { NPX_CPA_SHIM, projectRoot, spawnCpa, type CpaResult } from './support.js';

// Each block is a whole journey through subprocesses: generous limits for a loaded machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const DOCUMENTED_URL = 'http://127.0.0.1:8787';
const ARCHIVE = 'twitter-2024-06-01-abc.zip';

/** The ```sh blocks marked `<!-- readme-test: NAME -->` (on the line before the fence), by name. */
export function markedBlocks(markdown: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const m of markdown.matchAll(/^<!-- readme-test: ([\w-]+) -->\n```sh\n([\s\S]*?)^```$/gm)) {
    if (blocks.has(m[1]!)) throw new Error(`two README blocks are marked readme-test: ${m[1]}`);
    blocks.set(m[1]!, m[2]!);
  }
  return blocks;
}

const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
const blocks = markedBlocks(readme);

/** PATH without the `node_modules/.bin` folders npm and npx add to it. */
const readerPath = () =>
  (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => !dir.endsWith(`node_modules${path.sep}.bin`))
    .join(path.delimiter);

/** A fresh instance with the fakes of the five platforms, and a working directory holding a reader's files. */
async function world() {
  const mastodon = await startMastodonFake();
  const bluesky = await startBlueskyFake();
  const x = await startXFake({ username: 'ada' });
  const linkedin = await startLinkedInFake();
  const threads = await startThreadsFake({ username: 'ada' });
  const fakes = [mastodon.fake, bluesky.fake, x.fake, linkedin.fake, threads.fake];
  const s = await startTestServer({
    env: { ...outboundEnvFor(...fakes), ...bluesky.env, ...x.env, ...linkedin.env, ...threads.env, JOB_POLL_MS: '50' },
  });
  const home = mkdtempSync(path.join(os.tmpdir(), 'cpa-readme-'));
  const archive = xArchive({ posts: 30 });
  const zip = (await writeZip(archive.files))!;
  mkdirSync(path.join(home, 'Downloads'));
  writeFileSync(path.join(home, 'Downloads', ARCHIVE), zip);
  writeFileSync(path.join(home, ARCHIVE), zip);
  writeFileSync(path.join(home, 'mastodon-token.txt'), `${mastodon.state.token}\n`);
  writeFileSync(path.join(home, 'bluesky-app-password.txt'), `${bluesky.state.appPassword}\n`);
  writeFileSync(path.join(home, 'x-access-token.txt'), `${x.state.token}\n`);
  writeFileSync(path.join(home, 'linkedin-access-token.txt'), `${linkedin.state.token}\n`);
  writeFileSync(path.join(home, 'threads-access-token.txt'), `${threads.state.token}\n`);
  const w = {
    s,
    mastodon,
    bluesky,
    x,
    linkedin,
    threads,
    home,
    publicPosts: archive.publicPosts.size,
    /** Runs a block with bash as the README gives it, but for the substitutions above; then prints its shell variables. */
    async run(block: string): Promise<{ r: CpaResult; vars: Record<string, string> }> {
      const text = block
        .replaceAll(DOCUMENTED_URL, s.url)
        .replaceAll('mastodon.social', mastodon.fake.host)
        .replaceAll('MASTODON_TOKEN', mastodon.state.token)
        .replaceAll('BLUESKY_APP_PASSWORD', bluesky.state.appPassword);
      const script = `set -euo pipefail\n${NPX_CPA_SHIM}\n${text}\necho; echo "README-TEST PIPELINE=\${PIPELINE:-} ARTIFACT=\${ARTIFACT:-}"\n`;
      const r = await spawnCpa([], {
        command: ['bash', '-c', script],
        cwd: home,
        // a reader's shell: no node_modules/.bin on PATH (npm puts it there for the test run), so
        // that a bare `cpa` fails here as it does for them
        env: { HOME: home, DATA_DIR: s.db.dataDir, CPA_BASE_URL: s.url, PATH: readerPath() },
        input: '',
      }).done;
      const vars = Object.fromEntries([...(/^README-TEST (.*)$/m.exec(r.stdout)?.[1] ?? '').matchAll(/(\w+)=(\S*)/g)].map((m) => [m[1]!, m[2]!]));
      return { r, vars };
    },
    async stop() {
      await s.stop();
      for (const f of fakes) await f.close();
    },
  };
  return w;
}
type World = Awaited<ReturnType<typeof world>>;

/**
 * What the archive journey (cpa or curl) leaves behind: imported, the accounts connected (the
 * five platforms with cpa, Mastodon and Bluesky with curl), the artifact live on each, each fake
 * having received its platform's variant once.
 */
async function expectPublishedJourney(w: World, vars: Record<string, string>, five: boolean) {
  const client = w.s.client();
  const imports = await unwrap(client.GET('/api/agent/v1/imports'));
  expect(imports.data.map((i) => [i.handle, i.format, i.status])).toContainEqual(['my-x', 'x', 'ready']);
  const connected: Array<[string, string]> = [
    ['mastodon', w.mastodon.handle],
    ['bluesky', 'ada.bsky.social'],
    ...(five
      ? ([
          ['x', '@ada'],
          ['linkedin', 'ada-lovelace'],
          ['threads', '@ada'],
        ] as Array<[string, string]>)
      : []),
  ];
  const accounts = await unwrap(client.GET('/api/agent/v1/accounts'));
  expect(accounts.data.map((a) => [a.platform, a.handle, a.status]).sort()).toEqual(
    [['archive', 'my-x', 'active'], ...connected.map(([p, h]) => [p, h, 'active'])].sort(),
  );
  expect(vars.PIPELINE).toMatch(/^pl_/);
  const pipeline = await unwrap(client.GET('/api/agent/v1/pipelines/{id}', { params: { path: { id: vars.PIPELINE! } } }));
  expect(pipeline).toMatchObject({ handle: 'my-x', post_count: w.publicPosts });
  expect(pipeline.destinations.map((d) => [d.platform, d.handle])).toEqual(connected);
  expect(vars.ARTIFACT).toMatch(/^art_/);
  let artifact = await unwrap(client.GET('/api/agent/v1/artifacts/{id}', { params: { path: { id: vars.ARTIFACT! } } }));
  if (artifact.publish_run_id) await expectRunSucceeded(w.s.running.deps, artifact.publish_run_id);
  artifact = await unwrap(client.GET('/api/agent/v1/artifacts/{id}', { params: { path: { id: vars.ARTIFACT! } } }));
  const live = (platform: string) => artifact.destinations.find((d) => d.platform === platform && !d.manual);
  for (const [platform, handle] of connected) expect(live(platform), platform).toMatchObject({ state: 'live', handle });
  // what the fakes received is each platform's variant, part by part, once
  const variant = (platform: string) => artifact.variants.find((v) => v.platform === platform)!.parts.map((p) => p.text);
  expect(w.mastodon.state.posted.map((p) => p.text)).toEqual(variant('mastodon'));
  expect([...w.bluesky.state.records.values()].map((r) => r.text)).toEqual(variant('bluesky'));
  if (five) {
    expect(w.x.state.tweets.map((t) => t.text)).toEqual(variant('x'));
    expect(w.linkedin.state.posts.map((p) => p.text)).toEqual(variant('linkedin'));
    expect(w.threads.state.posts.map((p) => p.text)).toEqual(variant('threads'));
    // each destination's address is its first post's
    expect(live('x')!.url).toBe(`https://x.com/ada/status/${w.x.state.tweets[0]!.id}`);
    expect(live('linkedin')!.url).toBe(`https://www.linkedin.com/feed/update/${w.linkedin.state.posts[0]!.id}/`);
    expect(live('threads')!.url).toBe(w.threads.state.posts[0]!.permalink);
  } else {
    for (const f of [w.x.state.tweets, w.linkedin.state.posts, w.threads.state.posts]) expect(f).toEqual([]);
  }
  return artifact;
}

const EFFECTS: Record<string, (w: World, r: CpaResult, vars: Record<string, string>) => Promise<void>> = {
  /** From the downloaded archive to a post on the five accounts, with `cpa`: the agent drafts and publishes with a token of its own, the person approves. */
  async journey(w, r, vars) {
    // the upload's table (piped: tab-separated rows) of what it imports and leaves out
    expect(r.stdout).toContain(`imports\tposts\t${w.publicPosts}\n`);
    expect(r.stdout).toMatch(/^leaves out\t\S.*\t\d+$/m);
    // `artifacts get` says where publishing sends each variant: the pipeline's defaults
    expect(r.stdout).toContain(`to ${w.mastodon.handle} (the pipeline's default destination)`);
    expect(r.stdout).not.toContain('name a destination with --to');
    // The agent's token could not publish what nobody approved; the person approved, then it could.
    expect(r.stderr).toContain('approval_required');
    expect(r.stdout).toMatch(/^waiting for a person's approval \(exit [1-9]\d*\)$/m);
    const artifact = await expectPublishedJourney(w, vars, true);
    expect(artifact.state).toBe('published');
    expect(artifact.approved_by).toBe('first-launch token');
    const record = await unwrap(w.s.client().GET('/api/agent/v1/audit-events', { params: { query: { subject_id: vars.ARTIFACT!, limit: 100 } } }));
    const by = (action: string) => record.data.filter((e) => e.action === action).map((e) => e.actor.name);
    expect(by('artifact.draft_requested')).toEqual(['my agent']);
    expect(by('artifact.approved')).toEqual(['first-launch token']);
    expect(by('artifact.publish_requested')).toEqual(['my agent']);
    expect(artifact.destinations.map((d) => d.platform)).toEqual(['mastodon', 'bluesky', 'x', 'linkedin', 'threads']);
    // `publish --wait` showed each destination's state and its posts' URLs (on stderr, beside its progress)
    for (const d of artifact.destinations) for (const p of d.parts) expect(r.stderr).toContain(`part ${p.position}: ${p.url}`);
    expect(r.stderr).toMatch(/^mastodon \S+ {2}live {2}https:\/\/\S+$/m);
  },
  /** The same with curl, ending with the X variant recorded as posted by hand. */
  async curl(w, r, vars) {
    expect(r.stdout).not.toMatch(/"code":"unauthorized"/);
    const artifact = await expectPublishedJourney(w, vars, false);
    expect(artifact.destinations.find((d) => d.platform === 'x')).toMatchObject({
      manual: true,
      state: 'live',
      url: 'https://x.com/ada/status/1859951771532320873',
    });
    expect(artifact.variants.find((v) => v.platform === 'x')!.parts.map((p) => p.text)).toEqual(['First post. 1/2', 'Second post. 2/2']);
    expect(artifact.state).toBe('published' satisfies Schemas['Artifact']['state']);
  },
};

describe("README: the shell blocks marked 'readme-test'", () => {
  it('finds the marked blocks, and knows what each must do', () => {
    expect([...blocks.keys()].sort()).toEqual(Object.keys(EFFECTS).sort());
  });

  // Each block has an instance and fakes of its own: they run side by side.
  for (const name of Object.keys(EFFECTS)) {
    it.concurrent(`${name}: runs as written and does what it says`, async ({ expect }) => {
      const block = blocks.get(name);
      expect(block, `README.md has no block marked <!-- readme-test: ${name} -->`).toBeDefined();
      const w = await world();
      try {
        const { r, vars } = await w.run(block!);
        expect(r.code, `${r.stdout}\n--- stderr:\n${r.stderr}`).toBe(0);
        await EFFECTS[name]!(w, r, vars);
      } finally {
        await w.stop();
      }
    });
  }
});
