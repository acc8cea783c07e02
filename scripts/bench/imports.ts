// `npm run bench:imports`: upload and ingest of generated exports against the real server in a
// child process, on SQLite and on PostgreSQL: an X archive of 100,000 posts (a ZIP as X hands it
// out, built by test/support/exports.ts from the documented format, with retweets, replies,
// protected posts, long posts, media and every Unicode plane), a Bluesky repository CAR of
// 100,000 records and a WordPress WXR of 20,000 published posts (36,364 items; test/support/exports-formats.ts: reposts,
// likes, follows, replies, threads, images, facets; drafts, private posts, pages, comments).
// Reports the upload (streamed to storage, then read once to check and count) and the ingest
// (posts/s), the server's RSS while the ingest runs (sampled without forcing GC; flat means it
// does not grow with the export), and writes the `imports` (X), `imports-bluesky` and
// `imports-wordpress` sections of BENCHMARKS.md. `--format mastodon` (not in the default run):
// a bare Mastodon `outbox.json` of `--mb N` MB (default 200), uploaded streamed, with the
// server's RSS also sampled during the upload and its check (the memory bound of docs/ingest.md);
// section `imports-mastodon`. Options: `--db sqlite|postgresql`,
// `--format x,bluesky,wordpress,mastodon` (default the first three), `--posts N` (default 100,000
// for X and Bluesky records, 20,000 published WordPress posts).
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { unwrap, uploadImport } from '../../clients/typescript/src/index.js';
import { mastodonArchive, writeZip, xArchive } from '../../test/support/exports.js';
import { blueskyRepo, wordpressExport } from '../../test/support/exports-formats.js';
import { startServerChild } from './children.js';
import { arg, kindsFromArgs, logger, mb, type Kind } from './args.js';
import { writeSection } from './report.js';

type Format = 'x' | 'bluesky' | 'wordpress' | 'mastodon';
const kinds = kindsFromArgs();
const formats = (arg('format') ?? 'x,bluesky,wordpress').split(',').map((f) => f.trim()) as Format[];
const log = logger('bench:imports');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'cp-bench-imports-'));

interface Generated {
  file: string;
  size: number;
  expected: number;
  /** The first sentence of the BENCHMARKS.md section: what was generated. */
  what: string;
}

/** The generated file's size, and its description (given the size in MB). */
function made(file: string, expected: number, describe: (size: string) => string): Generated {
  const size = statSync(file).size;
  return { file, size, expected, what: describe(mb(size)) };
}

/** Writes the export of `format` to a file; only the count of posts to expect is kept in memory afterwards. */
async function generate(format: Format): Promise<Generated> {
  if (format === 'x') {
    const posts = Number(arg('posts') ?? 100_000);
    const file = path.join(tmp, 'twitter-archive.zip');
    log(`generating an X archive of ${posts} posts…`);
    const g = xArchive({ posts, partSize: 25_000, filler: 120 });
    await writeZip(g.files, file);
    const expected = g.publicPosts.size;
    g.files.length = 0;
    return made(
      file,
      expected,
      (size) =>
        `Generated X archive ZIP: ${posts.toLocaleString('en')} tweets (${expected.toLocaleString('en')} own public posts after retweets, replies to others and protected posts are left out), ${size} MB.`,
    );
  }
  if (format === 'bluesky') {
    const records = Number(arg('posts') ?? 100_000);
    const file = path.join(tmp, 'repo.car');
    log(`generating a Bluesky repository of ${records} records…`);
    const g = await blueskyRepo({ posts: records, order: 'records-first' });
    await g.write(file);
    return made(
      file,
      g.publicPosts.size,
      (size) =>
        `Generated Bluesky repository CAR: ${records.toLocaleString('en')} records written records-first (${g.publicPosts.size.toLocaleString('en')} own posts after reposts, likes, follows and replies to others are left out; threads, images with alt, link facets), ${size} MB.`,
    );
  }
  if (format === 'mastodon') {
    const target = Number(arg('mb') ?? 200) * 1e6;
    const file = path.join(tmp, 'outbox.json');
    log(`generating a Mastodon outbox.json of ${mb(target)} MB…`);
    // In pieces of 2,000 activities (the ids of each piece made distinct), never whole in memory.
    const out = createWriteStream(file);
    out.write('{"@context":"https://www.w3.org/ns/activitystreams","id":"outbox.json","type":"OrderedCollection","orderedItems":[');
    let written = 0;
    let expected = 0;
    let activities = 0;
    for (let piece = 1; written < target; piece++) {
      const g = mastodonArchive({ posts: 2000, seed: piece });
      expected += g.publicPosts.size;
      const outbox = g.files.find((f) => f.name.endsWith('outbox.json'))!.data as Buffer;
      for (const item of (JSON.parse(outbox.toString('utf8')) as { orderedItems: unknown[] }).orderedItems) {
        const text = `${activities ? ',' : ''}${JSON.stringify(item).replaceAll('/statuses/', `/statuses/${piece}0`)}`;
        activities += 1;
        written += Buffer.byteLength(text);
        if (!out.write(text)) await once(out, 'drain');
      }
    }
    out.end(']}');
    await once(out, 'finish');
    return made(
      file,
      expected,
      (size) =>
        `Generated Mastodon outbox.json, sent bare (streamed, as \`application/json\`): ${activities.toLocaleString('en')} activities (${expected.toLocaleString('en')} own public posts after boosts, replies to others, followers-only posts and direct messages are left out), ${size} MB.`,
    );
  }
  // 11 items in 20 are published posts: enough items for `--posts` (default 20,000) of them.
  const items = Math.ceil((Number(arg('posts') ?? 20_000) * 20) / 11);
  const file = path.join(tmp, 'wordpress.xml');
  log(`generating a WordPress export of ${items} items…`);
  const g = wordpressExport({ posts: items, paragraphs: 4 });
  const out = createWriteStream(file);
  for (const chunk of g.chunks()) if (!out.write(chunk)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  return made(
    file,
    g.publicPosts.size,
    (size) =>
      `Generated WordPress WXR: ${items.toLocaleString('en')} items (${g.publicPosts.size.toLocaleString('en')} published posts after drafts, private, trashed posts, pages, attachments and menu items are left out; ~1.5 KB of HTML each, comments, categories, tags), ${size} MB.`,
  );
}

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
  /** Highest RSS sampled during the upload and its check. */
  rssUploadMax: number;
}
async function measure(format: Format, g: Generated): Promise<Result[]> {
  const { file, size, expected } = g;
  const results: Result[] = [];
  for (const kind of kinds) {
    const { child, client, stop } = await startServerChild(kind, `imports-${format}-${kind}`, { INSTANCE_MODE: 'desktop', LOG_LEVEL: 'warn' });
    try {
      const rssBefore = (await child.call<{ rss: number }>('mem')).rss;
      log(`${kind}: uploading…`);
      const cpu0 = await child.call<number>('cpu');
      let t = performance.now();
      // RSS every 250 ms while the upload streams in and is checked (no GC forced).
      let rssUploadMax = rssBefore;
      let uploading = true;
      const sampler = (async () => {
        while (uploading) {
          rssUploadMax = Math.max(rssUploadMax, (await child.call<{ rss: number }>('rss')).rss);
          await new Promise((r) => setTimeout(r, 250));
        }
      })();
      const imp = await uploadImport(client, { path: file, handle: `bench-${format}`, format }).finally(() => (uploading = false));
      await sampler;
      const uploadSeconds = (performance.now() - t) / 1000;
      log(`${kind}: RSS during upload + check ${mb(rssBefore)} → ${mb(rssUploadMax)} MB (+${mb(rssUploadMax - rssBefore)})`);
      log(`${kind}: upload + check ${uploadSeconds.toFixed(1)} s (${Math.round(size / 1024 / 1024 / uploadSeconds)} MB/s, ${imp.summary.posts} posts counted)`);
      const cpu1 = await child.call<number>('cpu');
      t = performance.now();
      const started = await unwrap(
        client.POST('/api/agent/v1/pipelines/from-intent', {
          body: { handle: `bench-${format}`, intent: 'Benchmark import', idempotency_key: `bench-imports-${format}-${kind}-${Date.now()}` },
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
      results.push({ db: kind, uploadSeconds, ingestSeconds, posts: run.progress?.done ?? 0, rssMin, rssMax, rssBefore, uploadCpu, ingestCpu, rssUploadMax });
    } finally {
      await stop().catch((err: unknown) => log(`could not drop the bench database: ${(err as Error).message}`));
    }
  }
  return results;
}

const SECTIONS: Record<Format, string> = { x: 'imports', bluesky: 'imports-bluesky', wordpress: 'imports-wordpress', mastodon: 'imports-mastodon' };
try {
  for (const format of formats) {
    const g = await generate(format);
    log(`${g.file}: ${mb(g.size)} MB, ${g.expected} posts to import`);
    const results = await measure(format, g);
    rmSync(g.file, { force: true });
    const table = [
      `${g.what} Node ${process.version}, ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}, load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(', ')} at the end (a machine shared with other work: wall times are loaded; server CPU is the child's own).`,
      '',
      '| database | upload + check (wall) | its server CPU | server RSS growth during upload + check | ingest (wall) | posts/s (wall) | ingest server CPU | posts per CPU-second | server RSS during ingest |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
      ...results.map(
        (r) =>
          `| ${r.db} | ${r.uploadSeconds.toFixed(1)} s | ${r.uploadCpu.toFixed(1)} s | +${mb(r.rssUploadMax - r.rssBefore)} MiB | ${r.ingestSeconds.toFixed(1)} s | ${Math.round(r.posts / r.ingestSeconds).toLocaleString('en')} | ${r.ingestCpu.toFixed(1)} s | ${Math.round(r.posts / r.ingestCpu).toLocaleString('en')} | ${mb(r.rssMin)}–${mb(r.rssMax)} MB (before: ${mb(r.rssBefore)} MB; +${mb(r.rssMax - r.rssBefore)} MiB) |`,
      ),
    ].join('\n');
    console.log(table);
    writeSection(table, SECTIONS[format]);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
