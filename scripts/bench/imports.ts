// `npm run bench:imports`: upload and ingest of a generated X archive of 100,000 posts (a ZIP as X
// hands it out, built by test/support/exports.ts from the documented format, with retweets,
// replies, protected posts, long posts, media and every Unicode plane) against the real server in
// a child process, on SQLite and on PostgreSQL. Reports the upload (streamed to storage, then read
// once to check and count) and the ingest (posts/s), the server's RSS while the ingest runs
// (sampled without forcing GC; flat means it does not grow with the archive), and writes the
// `imports` section of BENCHMARKS.md. Options: `--db sqlite|postgresql`, `--posts N` (default 100000).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unwrap, uploadImport } from '../../clients/typescript/src/index.js';
import { writeZip, xArchive } from '../../test/support/exports.js';
import { startServerChild } from './children.js';
import { arg, kindsFromArgs, logger, mb, type Kind } from './args.js';
import { writeSection } from './report.js';

const kinds = kindsFromArgs();
const POSTS = Number(arg('posts') ?? 100_000);
const log = logger('bench:imports');

const tmp = mkdtempSync(path.join(os.tmpdir(), 'cp-bench-imports-'));
const file = path.join(tmp, 'twitter-archive.zip');
log(`generating an X archive of ${POSTS} posts…`);
const g = xArchive({ posts: POSTS, partSize: 25_000, filler: 120 });
await writeZip(g.files, file);
const size = statSync(file).size;
const expected = g.publicPosts.size;
g.files.length = 0;
log(`${file}: ${mb(size)} MB, ${expected} public own posts`);

interface Result {
  db: Kind;
  uploadSeconds: number;
  ingestSeconds: number;
  posts: number;
  rssMin: number;
  rssMax: number;
  rssBefore: number;
  uploadCpu: number;
  ingestCpu: number;
}
const results: Result[] = [];

for (const kind of kinds) {
  const { child, client, stop } = await startServerChild(kind, `imports-${kind}`, { INSTANCE_MODE: 'desktop', LOG_LEVEL: 'warn' });
  try {
    const rssBefore = (await child.call<{ rss: number }>('mem')).rss;
    log(`${kind}: uploading…`);
    const cpu0 = await child.call<number>('cpu');
    let t = performance.now();
    const imp = await uploadImport(client, { path: file, handle: 'bench-x', format: 'x' });
    const uploadSeconds = (performance.now() - t) / 1000;
    log(`${kind}: upload + check ${uploadSeconds.toFixed(1)} s (${Math.round(size / 1024 / 1024 / uploadSeconds)} MB/s, ${imp.summary.posts} posts counted)`);
    const cpu1 = await child.call<number>('cpu');
    t = performance.now();
    const started = await unwrap(
      client.POST('/api/agent/v1/pipelines/from-intent', {
        body: { handle: 'bench-x', intent: 'Benchmark import', idempotency_key: `bench-imports-${kind}-${Date.now()}` },
      }),
    );
    let rssMin = Infinity;
    let rssMax = 0;
    let run;
    for (;;) {
      run = await unwrap(client.GET('/api/agent/v1/runs/{id}', { params: { path: { id: started.run_id } } }));
      const { rss } = await child.call<{ rss: number }>('rss');
      if (run.status === 'running') {
        rssMin = Math.min(rssMin, rss);
        rssMax = Math.max(rssMax, rss);
      }
      if (run.status === 'succeeded' || run.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const ingestSeconds = (performance.now() - t) / 1000;
    const cpu2 = await child.call<number>('cpu');
    if (run.status !== 'succeeded') throw new Error(`ingest ${run.status}: ${JSON.stringify(run.error)}`);
    log(`${kind}: ingest ${ingestSeconds.toFixed(1)} s, ${Math.round(expected / ingestSeconds)} posts/s, RSS ${mb(rssMin)}–${mb(rssMax)} MB`);
    const uploadCpu = (cpu1 - cpu0) / 1e6;
    const ingestCpu = (cpu2 - cpu1) / 1e6;
    log(
      `${kind}: server CPU: upload + check ${uploadCpu.toFixed(1)} s, ingest ${ingestCpu.toFixed(1)} s (${Math.round(expected / ingestCpu)} posts per CPU-second)`,
    );
    results.push({ db: kind, uploadSeconds, ingestSeconds, posts: run.progress?.done ?? 0, rssMin, rssMax, rssBefore, uploadCpu, ingestCpu });
  } finally {
    await stop().catch((err: unknown) => log(`could not drop the bench database: ${(err as Error).message}`));
  }
}
rmSync(tmp, { recursive: true, force: true });

const table = [
  `Generated X archive ZIP: ${POSTS.toLocaleString('en')} tweets (${expected.toLocaleString('en')} own public posts after retweets, replies to others and protected posts are left out), ${mb(size)} MB. Node ${process.version}, ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}.`,
  '',
  '| database | upload + check (wall) | its server CPU | ingest (wall) | posts/s (wall) | ingest server CPU | posts per CPU-second | server RSS during ingest |',
  '|---|---:|---:|---:|---:|---:|---:|---|',
  ...results.map(
    (r) =>
      `| ${r.db} | ${r.uploadSeconds.toFixed(1)} s | ${r.uploadCpu.toFixed(1)} s | ${r.ingestSeconds.toFixed(1)} s | ${Math.round(r.posts / r.ingestSeconds).toLocaleString('en')} | ${r.ingestCpu.toFixed(1)} s | ${Math.round(r.posts / r.ingestCpu).toLocaleString('en')} | ${mb(r.rssMin)}–${mb(r.rssMax)} MB (before: ${mb(r.rssBefore)} MB) |`,
  ),
].join('\n');
console.log(table);
writeSection(table, 'imports');
