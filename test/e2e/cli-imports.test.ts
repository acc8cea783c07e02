// `cpa imports upload`: an export file as downloaded goes up with an upload bar, and `--intent
// --wait` starts the pipeline that ingests it and follows the ingest's progress to its end.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mastodonArchive, writeTarGz } from '../support/exports.js';
import { blueskyRepo, wordpressExport, wxrBytes } from '../support/exports-formats.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { cpaIn, expectExit, json } from './support.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let s: TestServer;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'cpa-imports-'));
const g = mastodonArchive({ posts: 400, filler: 300 });
const file = path.join(tmp, 'archive-20241027.tar.gz');

beforeAll(async () => {
  writeFileSync(file, await writeTarGz(g.files));
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

const run = (args: string[]) => cpaIn(['--base-url', s.url, '--token', s.token, ...args]);

describe('cpa imports upload', () => {
  it('uploads the archive file, then ingests it with --intent --wait, showing upload and ingest progress', async () => {
    const r = await run(['imports', 'upload', file, '--handle', 'ada-masto', '--intent', 'Weekly posts about our releases', '--wait', '--json']);
    expectExit(r, 0);
    const out = json<{ import_id: string; pipeline_id: string; run: { status: string; progress: { done: number; total: number } } }>(r);
    expect(out.import_id).toMatch(/^imp_/);
    expect(out.run.status).toBe('succeeded');
    expect(out.run.progress).toEqual({ done: g.publicPosts.size, total: g.publicPosts.size });
    const got = await run(['imports', 'get', out.import_id, '--json']);
    expectExit(got, 0);
    expect(json<{ summary: { posts: number; skipped: { direct_message: number } } }>(got).summary).toMatchObject({
      posts: g.publicPosts.size,
      skipped: { direct_message: 25 },
    });
  });

  it('shows the upload and the ingest advancing when not quiet', async () => {
    const r = await run(['imports', 'upload', file, '--handle', 'ada-masto-2', '--intent', 'Weekly posts', '--wait']);
    expectExit(r, 0);
    expect(r.stderr).toMatch(/upload 100% \(/);
    expect(r.stderr).toMatch(/ingest\): succeeded · \d+ of \d+ \(100%\)/);
  });

  it('without --intent, prints the import and the table of what it imports and what it leaves out, by reason', async () => {
    const r = await run(['imports', 'upload', file, '--handle', 'ada-masto-table']);
    expectExit(r, 0);
    expect(r.stdout).toMatch(/^format\tmastodon$/m);
    // piped: the table's rows as tab-separated lines (a terminal shows them under a header)
    expect(r.stdout).toContain(`imports\tposts\t${g.publicPosts.size}\n`);
    const reasons = Object.entries(g.skipped).filter(([, n]) => n > 0);
    expect(reasons.length).toBeGreaterThan(1);
    for (const [reason, n] of reasons) expect(r.stdout).toContain(`leaves out\t${reason.replaceAll('_', ' ')}\t${n}\n`);
    const tty = await cpaIn(['--base-url', s.url, '--token', s.token, 'imports', 'upload', file, '--handle', 'ada-masto-table'], { tty: true });
    expect(tty.stdout).toMatch(/│\s*leaves out\s*│\s*repost\s*│\s*\d+\s*│/);
  });

  it("uploads a Bluesky .car and a WordPress .xml as downloaded (their content types are the contract's)", async () => {
    const car = path.join(tmp, 'repo.car');
    writeFileSync(car, (await (await blueskyRepo({ posts: 40 })).write())!);
    const xml = path.join(tmp, 'adasnotes.WordPress.2024-05-20.xml');
    const wxr = wordpressExport({ posts: 20 });
    writeFileSync(xml, wxrBytes(wxr));
    for (const [f, format] of [
      [car, 'bluesky'],
      [xml, 'wordpress'],
    ] as const) {
      const r = await run(['imports', 'upload', f, '--handle', `ada-${format}`, '--json']);
      expectExit(r, 0);
      expect(json<{ format: string; container: string }>(r)).toMatchObject({ format, container: 'file' });
    }
  });

  it('a missing file is a usage error; a file that is no export is a validation error naming what is understood', async () => {
    expectExit(await run(['imports', 'upload', path.join(tmp, 'nope.zip'), '--handle', 'x']), 2);
    const junk = path.join(tmp, 'notes.txt');
    writeFileSync(junk, 'not an export');
    const r = await run(['imports', 'upload', junk, '--handle', 'x']);
    expectExit(r, 4);
    expect(r.stderr).toMatch(/Understood: X \(data\/tweets\.js\)/);
  });
});
