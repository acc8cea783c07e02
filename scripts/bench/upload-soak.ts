// `npm run bench:uploads` (also `npm run bench -- --uploads`): the upload soak of issue 22. Against
// the real server in a child process, on SQLite and on PostgreSQL: 200 uploads (exports to POST
// /imports and images to POST /media, eight at a time), a third of them cut off at a random point
// of the body (seeded: the same run every time) — the socket dropped, or half-closed — while
// normal traffic (GET /api/health, GET /pipelines/{id}) runs beside them. Every cut-off key is
// sent again whole afterwards (it must be taken: nothing was recorded under it). Counts: crashes
// (the child gone), 5xx answers, leaked blobs (stored but referenced by no row), and the server's
// RSS after a GC at the start, every 50 uploads and at the end (flat: it does not grow with the
// uploads). Writes the `upload-soak` section of BENCHMARKS.md. Options: `--db sqlite|postgresql`,
// `--uploads N` (default 200), `--seed N` (default 22).
import net from 'node:net';
import os from 'node:os';
import { unwrap } from '../../clients/typescript/src/index.js';
import { mastodonArchive, rng, writeTarGz } from '../../test/support/exports.js';
import { noise } from '../../test/support/images.js';
import { arg, kindsFromArgs, logger, mb, type Kind } from './args.js';
import { startServerChild } from './children.js';
import { writeSection } from './report.js';

const kinds = kindsFromArgs();
const UPLOADS = Number(arg('uploads') ?? 200);
const SEED = Number(arg('seed') ?? 22);
const CONCURRENCY = 8;
const log = logger('bench:uploads');
const V1 = '/api/agent/v1';

log('making the bodies: a Mastodon archive (tar.gz) and two camera-noise JPEGs…');
const archive = await writeTarGz(mastodonArchive({ posts: 20_000, seed: SEED }).files);
const images = [await noise(1600, 1200), await noise(800, 600)];
log(`archive ${mb(archive.length)} MB, images ${images.map((i) => `${mb(i.length)} MB`).join(', ')}`);

interface Plan {
  n: number;
  kind: 'import' | 'media';
  body: Buffer;
  /** Cut off after this many bytes (null: sent whole). */
  cutAt: number | null;
  /** How: the socket destroyed, or a FIN after the bytes (a half-close). */
  how: 'destroy' | 'end';
  key: string;
}

function plans(seed: number): Plan[] {
  const r = rng(seed).next;
  return Array.from({ length: UPLOADS }, (_, n) => {
    const kind = r() < 0.5 ? 'import' : 'media';
    const body = kind === 'import' ? archive : images[Math.floor(r() * images.length)]!;
    const cut = r() < 1 / 3;
    return { n, kind, body, cutAt: cut ? Math.floor(r() * body.length) : null, how: r() < 0.7 ? 'destroy' : 'end', key: `soak-${seed}-${n}-idempotency-key` };
  });
}

/** One upload on a raw socket: the head, then the body whole or cut; the status (null: none came). */
function upload(port: number, token: string, p: Plan, whole: boolean): Promise<number | null> {
  const target = p.kind === 'import' ? `${V1}/imports?handle=soak-archive&idempotency_key=${p.key}` : `${V1}/media?idempotency_key=${p.key}`;
  const type = p.kind === 'import' ? 'application/gzip' : 'image/jpeg';
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d: Buffer) => (got += d.toString('latin1')));
    s.on('error', () => {});
    s.on('close', () => resolve(/^HTTP\/1\.1 (\d{3})/.exec(got) ? Number(/^HTTP\/1\.1 (\d{3})/.exec(got)![1]) : null));
    s.on('connect', () => {
      s.write(
        `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${type}\r\nContent-Length: ${p.body.length}\r\nConnection: close\r\n\r\n`,
      );
      const bytes = whole || p.cutAt === null ? p.body : p.body.subarray(0, p.cutAt);
      s.write(bytes, () => {
        if (whole || p.cutAt === null) return; // the server answers and closes
        if (p.how === 'destroy') s.destroy();
        else s.end();
      });
    });
  });
}

interface Result {
  db: Kind;
  uploads: number;
  cut: number;
  taken: number;
  retriedTaken: number;
  fivexx: number;
  traffic: number;
  trafficFailures: number;
  crashed: boolean;
  leaked: number;
  rss: number[];
  seconds: number;
}
const results: Result[] = [];

for (const kind of kinds) {
  const { child, client, stop } = await startServerChild(kind, `upload-soak-${kind}`, {
    LOG_LEVEL: 'warn',
    UPLOAD_IDLE_SECONDS: '5',
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
  const port = Number(new URL(child.ready.url).port);
  const token = child.ready.token;
  let exited = false;
  const alive = () =>
    fetch(`${child.ready.url}/api/health`, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.ok,
      () => false,
    );
  try {
    const rss = [(await child.call<{ rss: number }>('mem')).rss];
    const list = plans(SEED);
    let fivexx = 0;
    let taken = 0;
    const statuses: Record<string, number> = {};
    const count = (st: number | null) => (statuses[String(st ?? 'none')] = (statuses[String(st ?? 'none')] ?? 0) + 1);
    // Normal traffic beside the uploads.
    let traffic = 0;
    let trafficFailures = 0;
    let running = true;
    const normal = (async () => {
      while (running) {
        const path = traffic % 2 ? '/api/health' : `${V1}/pipelines/${child.ready.pipelineId}`;
        const r = await fetch(`${child.ready.url}${path}`, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) }).catch(
          () => null,
        );
        traffic += 1;
        if (!r || r.status >= 500) trafficFailures += 1;
        await r?.arrayBuffer().catch(() => undefined);
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    const t = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < list.length) {
          const p = list[next++]!;
          const status = await upload(port, token, p, false);
          count(status);
          if (status !== null && status >= 500) fivexx += 1;
          if (p.cutAt === null && (status === 201 || status === 200)) taken += 1;
          if ((p.n + 1) % 50 === 0) {
            rss.push((await child.call<{ rss: number }>('mem')).rss);
            log(`${kind}: ${p.n + 1} uploads, RSS ${mb(rss.at(-1)!)} MB`);
          }
        }
      }),
    );
    running = false;
    await normal;
    // The cut-off keys, sent whole: nothing was recorded under them, so each is taken now.
    let retriedTaken = 0;
    for (const p of list.filter((x) => x.cutAt !== null)) {
      const status = await upload(port, token, p, true);
      count(status);
      if (status !== null && status >= 500) fivexx += 1;
      if (status === 201) retriedTaken += 1;
    }
    const seconds = (performance.now() - t) / 1000;
    const crashed = !(await alive());
    if (crashed) exited = true;
    const blobs = crashed ? { stored: [], referenced: [] } : await child.call<{ stored: string[]; referenced: string[] }>('blobs');
    const leaked = blobs.stored.filter((b) => !blobs.referenced.includes(b)).length;
    if (!crashed) rss.push((await child.call<{ rss: number }>('mem')).rss);
    const cut = list.filter((p) => p.cutAt !== null).length;
    results.push({ db: kind, uploads: list.length, cut, taken, retriedTaken, fivexx, traffic, trafficFailures, crashed, leaked, rss, seconds });
    log(
      `${kind}: ${list.length} uploads (${cut} cut off) in ${seconds.toFixed(1)} s; crashed ${crashed}, 5xx ${fivexx}, leaked blobs ${leaked}, ` +
        `${taken} whole ones taken, ${retriedTaken}/${cut} cut-off keys taken when sent again; traffic ${traffic} requests, ${trafficFailures} failed; answers ${JSON.stringify(statuses)}; RSS ${rss.map(mb).join(' → ')} MB`,
    );
    // A last look that the API still does its work.
    await unwrap(client.GET('/api/agent/v1/pipelines/{id}', { params: { path: { id: child.ready.pipelineId } } }));
  } finally {
    if (!exited) await stop().catch((err: unknown) => log(`could not stop: ${(err as Error).message}`));
  }
}

const table = [
  `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:uploads\` (seed ${SEED}; ${CONCURRENCY} uploads at a time on raw sockets, a third cut off at a seeded random byte, 70 % by dropping the socket and 30 % by a half-close; normal traffic beside them; client and server on the same machine, **shared with other work and loaded**: Node ${process.version}, ${os.cpus().length} cores, load average at the end ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(
      ', ',
    )}). Bodies: a Mastodon archive tar.gz of ${mb(archive.length)} MB (POST /imports), camera-noise JPEGs of ${images.map((i) => mb(i.length)).join(' and ')} MB (POST /media). RSS after a full GC: at the start, every 50 uploads, at the end.`,
  '',
  '| database | uploads (cut off) | crashes | 5xx | leaked blobs | whole ones taken | cut-off keys taken when sent again | normal requests (failed) | RSS (MiB) | wall |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  ...results.map(
    (r) =>
      `| ${r.db} | ${r.uploads} (${r.cut}) | ${r.crashed ? 1 : 0} | ${r.fivexx} | ${r.leaked} | ${r.taken}/${r.uploads - r.cut} | ${r.retriedTaken}/${r.cut} | ${r.traffic} (${r.trafficFailures}) | ${r.rss.map(mb).join(' → ')} | ${r.seconds.toFixed(0)} s |`,
  ),
].join('\n');
console.log(table);
writeSection(table, 'upload-soak');
const bad = results.some((r) => r.crashed || r.fivexx || r.leaked || r.trafficFailures || r.retriedTaken !== r.cut || r.taken !== r.uploads - r.cut);
process.exit(bad ? 1 : 0);
