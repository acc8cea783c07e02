// The soak (`npm run bench:soak`): GET /artifacts/{id} at half of its measured max rate (evenly
// spaced, open loop) for
// 10 minutes (BENCH_SOAK_MINUTES), with 100 idle stream subscribers and one event to them every
// 5 seconds, while the server's memory is sampled after a full GC every 15 s. Passes when no
// request failed and memory after the warm-up (the first 2 minutes) does not keep growing.
// Writes the soak section of BENCHMARKS.md. Options: `--db sqlite|postgresql` (default sqlite).
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { root, startServerChild } from './children.js';
import { measure, measurePaced } from './load.js';
import { logger } from './args.js';
import { writeSection } from './report.js';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 10);
const WARMUP_MINUTES = Math.min(2, MINUTES / 5);
const kind = process.argv.includes('postgresql') || process.argv.includes('--db=postgresql') ? 'postgresql' : 'sqlite';
const log = logger('soak');

type Mem = { rss: number; heapUsed: number; external: number };
interface Sample {
  minute: number;
  heap: number;
  rss: number;
}

/** Least-squares slope of heap over time, in bytes per minute. */
function slope(samples: Sample[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const mx = samples.reduce((a, s) => a + s.minute, 0) / n;
  const my = samples.reduce((a, s) => a + s.heap, 0) / n;
  const num = samples.reduce((a, s) => a + (s.minute - mx) * (s.heap - my), 0);
  const den = samples.reduce((a, s) => a + (s.minute - mx) ** 2, 0);
  return den ? num / den : 0;
}

function idleSubscribers(url: string, token: string, n: number): net.Socket[] {
  const { port } = new URL(url);
  return Array.from({ length: n }, () => {
    const s = net.connect(Number(port), '127.0.0.1', () => s.write(`GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`));
    s.on('data', () => {});
    s.on('error', () => {});
    return s;
  });
}

async function main() {
  if (kind === 'postgresql') process.env.TEST_PG_ADMIN_URL = execFileSync('bash', [path.join(root, 'scripts', 'pg-start.sh')], { encoding: 'utf8' }).trim();
  const { child: server, stop } = await startServerChild(kind, `soak-${kind}`, {
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
  const s = server.ready;
  const target = { url: `${s.url}/api/agent/v1/artifacts/${s.artifactId}`, headers: { Authorization: `Bearer ${s.token}` } };
  const subs = idleSubscribers(s.url, s.token, 100);
  try {
    const max = await measure({ ...target, seconds: 10 });
    const rate = Math.max(1, Math.floor(max.rps / 2));
    log(`${kind}: max ${Math.round(max.rps)} req/s; soaking at ${rate} req/s for ${MINUTES} min`);
    const samples: Sample[] = [];
    const started = Date.now();
    let emitted = 0;
    const ticker = setInterval(() => void server.call('emit', { marker: `soak_${emitted++}` }).catch(() => {}), 5000);
    const sampler = setInterval(() => {
      void server.call<Mem>('mem').then((m) => {
        samples.push({ minute: (Date.now() - started) / 60_000, heap: m.heapUsed + m.external, rss: m.rss });
        const last = samples[samples.length - 1]!;
        log(`t=${last.minute.toFixed(1)} min heap+external ${(last.heap / 2 ** 20).toFixed(1)} MiB, rss ${(last.rss / 2 ** 20).toFixed(1)} MiB`);
      });
    }, 15_000);
    const r = await measurePaced({ ...target, rate, seconds: MINUTES * 60 });
    clearInterval(ticker);
    clearInterval(sampler);
    const after = samples.filter((x) => x.minute >= WARMUP_MINUTES);
    const atWarm = after[0] ?? samples[samples.length - 1]!;
    const end = samples[samples.length - 1]!;
    const perMinute = slope(after);
    const subscribers = await server.call<number>('subscribers');
    // Growth "beyond warm-up": the trend after it, over the whole soak, against a 5% band of the heap.
    const grown = perMinute * (MINUTES - WARMUP_MINUTES);
    const memoryOk = grown < 0.05 * atWarm.heap;
    const errorsOk = r.errors === 0 && r.non2xx === 0;
    const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
    const body = [
      `Soak of ${new Date(started).toISOString()} by \`npm run bench:soak\` on ${kind}: GET /artifacts/{id} at ${rate} req/s (half of the ${Math.round(max.rps)} req/s measured just before) for ${MINUTES} minutes, 100 idle stream subscribers, one event every 5 s (${emitted} events). Load average at the end: ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(', ')}.`,
      '',
      `- Requests: ${r.requests.toLocaleString('en-US')} at ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms; ${r.non2xx} non-2xx, ${r.errors} errors: ${errorsOk ? 'no errors' : '**errors**'}.`,
      `- Memory (heap + external after a full GC, sampled every 15 s): ${mib(atWarm.heap)} after the ${WARMUP_MINUTES}-minute warm-up, ${mib(end.heap)} at the end; trend after the warm-up ${(perMinute / 1024).toFixed(1)} KB/min (${(grown / 1024).toFixed(0)} KB over the rest of the soak): ${memoryOk ? 'no growth beyond warm-up' : '**grows**'}. RSS ${mib(atWarm.rss)} → ${mib(end.rss)}.`,
      `- Stream subscribers still connected at the end: ${subscribers} of 100.`,
    ].join('\n');
    console.log(body);
    writeSection(body, 'soak');
    process.exitCode = memoryOk && errorsOk ? 0 : 1;
  } finally {
    for (const sub of subs) sub.destroy();
    await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
