// `npm run bench:media`: POST /media of ~20 MB images (a PNG and a JPEG of camera-like noise, which
// compresses as badly as a real photo) against the real server in a child process, on SQLite and on
// PostgreSQL: upload throughput (wall, client to stored answer: read, sniff, header check, decode,
// re-encode without metadata, store), the server's CPU and its RSS peak while it works; then the
// time fitForPlatform takes to make each image fit Bluesky (≤ 2000×2000, ≤ 1,000,000 bytes) and
// Mastodon (≤ 33,177,600 pixels, ≤ 16 MiB). Writes the `media` section of BENCHMARKS.md.
// Options: `--db sqlite|postgresql`, `--runs N` (uploads per image and database, default 3).
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { uploadMedia } from '../../clients/typescript/src/index.js';
import { fitForPlatform } from '../../server/services/media-limits.js';
import { noise } from '../../test/support/images.js';
import { startServerChild } from './children.js';
import { arg, kindsFromArgs, logger, mb, type Kind } from './args.js';
import { writeSection } from './report.js';

const kinds = kindsFromArgs();
const RUNS = Number(arg('runs') ?? 3);
const log = logger('bench:media');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'cp-bench-media-'));
const images = [
  { name: 'PNG 2600×2600', file: path.join(tmp, 'noise.png'), bytes: await noise(2600, 2600, 'png') },
  { name: 'JPEG 6000×4000 (q95)', file: path.join(tmp, 'noise.jpg'), bytes: await noise(6000, 4000, 'jpeg') },
];
for (const img of images) {
  writeFileSync(img.file, img.bytes);
  log(`${img.name}: ${mb(img.bytes.length)} MB`);
}

interface UploadResult {
  db: Kind;
  image: string;
  size: number;
  seconds: number;
  cpu: number;
  rssBefore: number;
  rssPeak: number;
  stored: number;
}
const uploads: UploadResult[] = [];

for (const kind of kinds) {
  const { child, client, stop } = await startServerChild(kind, `media-${kind}`, { INSTANCE_MODE: 'desktop', LOG_LEVEL: 'warn' });
  try {
    for (const img of images) {
      const runs: UploadResult[] = [];
      for (let i = 0; i < RUNS; i++) {
        const rssBefore = (await child.call<{ rss: number }>('rss')).rss;
        let rssPeak = rssBefore;
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            rssPeak = Math.max(rssPeak, (await child.call<{ rss: number }>('rss')).rss);
            await new Promise((r) => setTimeout(r, 50));
          }
        })();
        const cpu0 = await child.call<number>('cpu');
        const t = performance.now();
        const made = await uploadMedia(client, { path: img.file, altText: 'Camera noise, for a benchmark' });
        const seconds = (performance.now() - t) / 1000;
        const cpu = ((await child.call<number>('cpu')) - cpu0) / 1e6;
        sampling = false;
        await sampler;
        runs.push({ db: kind, image: img.name, size: statSync(img.file).size, seconds, cpu, rssBefore, rssPeak, stored: made.size_bytes });
        log(
          `${kind} ${img.name}: ${seconds.toFixed(2)} s (${(img.bytes.length / 1024 / 1024 / seconds).toFixed(1)} MB/s), server CPU ${cpu.toFixed(2)} s, RSS ${mb(rssBefore)} → peak ${mb(rssPeak)} MB, stored ${mb(made.size_bytes)} MB`,
        );
      }
      const mid = runs.find((r) => r.seconds === median(runs.map((x) => x.seconds)))!;
      uploads.push({ ...mid, rssPeak: Math.max(...runs.map((r) => r.rssPeak)) });
    }
  } finally {
    await stop().catch((err: unknown) => log(`could not drop the bench database: ${(err as Error).message}`));
  }
}

const fits: Array<{ image: string; platform: string; seconds: number; out: string }> = [];
for (const img of images) {
  for (const platform of ['bluesky', 'mastodon'] as const) {
    const times: number[] = [];
    let out = '';
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const f = await fitForPlatform(img.bytes, platform);
      times.push((performance.now() - t) / 1000);
      out = f.changed ? `${f.width}×${f.height} ${f.format.toUpperCase()}, ${(f.bytes.length / 1_000_000).toFixed(2)} MB` : 'unchanged';
    }
    fits.push({ image: img.name, platform, seconds: median(times), out });
    log(`fit ${img.name} for ${platform}: ${median(times).toFixed(2)} s → ${out}`);
  }
}
rmSync(tmp, { recursive: true, force: true });

const table = [
  `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:media\` (median of ${RUNS} uploads each; client and server on the same machine; Node ${process.version}, ${os.cpus().length} cores, load average at the end ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')}). Images of camera-like noise, which compress as badly as photos.`,
  '',
  '| database | image | size | upload → stored answer (wall) | throughput | server CPU | server RSS before → peak | stored (re-encoded) |',
  '|---|---|---:|---:|---:|---:|---|---:|',
  ...uploads.map(
    (u) =>
      `| ${u.db} | ${u.image} | ${mb(u.size)} MB | ${u.seconds.toFixed(2)} s | ${(u.size / 1024 / 1024 / u.seconds).toFixed(1)} MB/s | ${u.cpu.toFixed(2)} s | ${mb(u.rssBefore)} → ${mb(u.rssPeak)} MB | ${mb(u.stored)} MB |`,
  ),
  '',
  '| image | fitted for | time (in process) | result |',
  '|---|---|---:|---|',
  ...fits.map((f) => `| ${f.image} | ${f.platform} | ${f.seconds.toFixed(2)} s | ${f.out} |`),
].join('\n');
console.log(table);
writeSection(table, 'media');
