// `npm run bench:uploads` (also `npm run bench -- --uploads`): the upload soak of issue 22. Against
// the real server in a child process, on SQLite and on PostgreSQL: 200 uploads (exports to POST
// /imports and images to POST /media, eight at a time), a third of them cut off at a random point
// of the body (seeded: the same run every time) — the socket dropped, or half-closed — while
// normal traffic (GET /api/health, GET /pipelines/{id}) runs beside them. Every cut-off key is
// sent again whole afterwards (it must be taken: nothing was recorded under it). Counts: crashes
// (the child gone), 5xx answers, leaked blobs (stored but referenced by no row), and the server's
// RSS after a GC at the start, every 50 uploads and at the end (flat: it does not grow with the
// uploads). Then hostile uploads (issue 30), HOSTILE of each kind, a few at a time: trickles (a
// byte every 500 ms, under the rate floor), tars whose header declares a 1 TiB entry (plain and
// gzipped), a Content-Length larger than the body then a half-close, a Content-Length smaller
// than the body; each must get its documented refusal (408, 422, 400, 422) and leave no blob.
// Writes the `upload-soak` section of BENCHMARKS.md. Options: `--db sqlite|postgresql`,
// `--uploads N` (default 200), `--seed N` (default 22), `--hostile N` (default 8).
import net from 'node:net';
import os from 'node:os';
import { unwrap } from '../../clients/typescript/src/index.js';
import { mastodonArchive, rng, writeTarGz } from '../../test/support/exports.js';
import { lyingSizeTar } from '../../test/support/hostile-archives.js';
import { noise } from '../../test/support/images.js';
import { exchange, head, type Step } from '../../test/support/raw-http.js';
import { gzipSync } from 'node:zlib';
import { arg, kindsFromArgs, logger, mb, type Kind } from './args.js';
import { startServerChild } from './children.js';
import { writeSection } from './report.js';

const kinds = kindsFromArgs();
const UPLOADS = Number(arg('uploads') ?? 200);
const SEED = Number(arg('seed') ?? 22);
const CONCURRENCY = 8;
const HOSTILE = Number(arg('hostile') ?? 8);
/** The rate floor for this run: short, so that a trickle is refused within seconds (the defaults are 1024 bytes/s over 60 s). */
const FLOOR = { UPLOAD_RATE_WINDOW_SECONDS: '5', UPLOAD_MIN_BYTES_PER_SECOND: '64' };
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

type HostileKind = 'trickle' | 'tar-1TiB' | 'tar.gz-1TiB' | 'length-over' | 'length-under';
/**
 * What each hostile upload must be answered (the first answer on the connection). The 1,000
 * declared bytes of `length-under` are refused (422) unless the parser, refusing what follows
 * them as a request (400), answers and closes first.
 */
const REFUSAL: Record<HostileKind, number[]> = { trickle: [408], 'tar-1TiB': [422], 'tar.gz-1TiB': [422], 'length-over': [400], 'length-under': [422, 400] };

const hugeTar = await lyingSizeTar('outbox.json', 1n << 40n, 1024);
const hugeTarGz = gzipSync(hugeTar);

/** Plays one hostile upload on a raw socket; its first answer's status (null: none). */
async function hostile(port: number, token: string, kind: HostileKind, n: number): Promise<number | null> {
  const target = `${V1}/imports?handle=soak-hostile&idempotency_key=soak-hostile-${SEED}-${kind}-${n}-key`;
  const h = (type: string, length: number) => head('POST', target, { Authorization: `Bearer ${token}`, 'Content-Type': type, 'Content-Length': length });
  const steps: Record<HostileKind, Step[]> = {
    // 2 bytes/s against a floor of 64: refused once it has lasted the 5 s window (it would go on for 30 s).
    trickle: [h('application/gzip', archive.length), { trickle: 60, every: 500 }],
    'tar-1TiB': [h('application/x-tar', hugeTar.length), hugeTar],
    'tar.gz-1TiB': [h('application/gzip', hugeTarGz.length), hugeTarGz],
    'length-over': [h('application/gzip', archive.length), archive.subarray(0, archive.length >> 1), 'end'],
    'length-under': [h('application/gzip', 1000), archive.subarray(0, 200_000), 'end'],
  };
  const got = await exchange(port, steps[kind], { closeWithinMs: 30_000 });
  return got.answers[0]?.status ?? null;
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
  /** Per hostile kind: sent, refused as documented. */
  hostile: Record<HostileKind, { sent: number; refused: number }>;
}
const results: Result[] = [];

for (const kind of kinds) {
  const { child, client, stop } = await startServerChild(kind, `upload-soak-${kind}`, {
    LOG_LEVEL: 'warn',
    UPLOAD_IDLE_SECONDS: '5',
    RATE_LIMIT_PER_MINUTE: '1000000',
    // Above the soak's own concurrency: a connection the parser closed (a Content-Length under the
    // body) can end before its upload's check has, whose slot is then still held. The cap itself
    // is tested in test/integration/upload-faults.test.ts.
    UPLOAD_MAX_CONCURRENT: String(2 * CONCURRENCY),
    ...FLOOR,
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
          let status = await upload(port, token, p, false);
          // A dropped upload holds its slot until the server has cleaned up after it (its blob
          // removed), so a burst of drops can briefly fill UPLOAD_MAX_CONCURRENT: a 429, sent
          // again after its Retry-After (10 s), as the typed client does.
          while (status === 429 && p.cutAt === null) {
            count(status);
            await new Promise((r) => setTimeout(r, 10_000));
            status = await upload(port, token, p, false);
          }
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
    // Hostile uploads, CONCURRENCY at a time: each must be refused as documented.
    const kindsOf = Object.keys(REFUSAL) as HostileKind[];
    const hostileList = kindsOf.flatMap((k) => Array.from({ length: HOSTILE }, (_, n) => ({ k, n })));
    const hostileResults = Object.fromEntries(kindsOf.map((k) => [k, { sent: 0, refused: 0 }])) as Result['hostile'];
    let h = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (h < hostileList.length) {
          const { k, n } = hostileList[h++]!;
          const status = await hostile(port, token, k, n);
          count(status);
          if (status !== null && status >= 500) fivexx += 1;
          hostileResults[k].sent += 1;
          if (status !== null && REFUSAL[k].includes(status)) hostileResults[k].refused += 1;
        }
      }),
    );
    log(`${kind}: hostile uploads ${JSON.stringify(hostileResults)}`);
    const seconds = (performance.now() - t) / 1000;
    const crashed = !(await alive());
    if (crashed) exited = true;
    // A connection can end before its upload's work has: a Content-Length under the body is
    // answered 400 by the parser while the declared bytes are still being checked, and that
    // upload's blob is removed when its check ends. Leaks are what is left once the server has
    // finished (at most 30 s).
    const countLeaks = async () => {
      const blobs = await child.call<{ stored: string[]; referenced: string[] }>('blobs');
      return blobs.stored.filter((b) => !blobs.referenced.includes(b)).length;
    };
    let leaked = crashed ? 0 : await countLeaks();
    for (let waited = 0; !crashed && leaked > 0 && waited < 30_000; waited += 500) {
      await new Promise((r) => setTimeout(r, 500));
      leaked = await countLeaks();
    }
    if (!crashed) rss.push((await child.call<{ rss: number }>('mem')).rss);
    const cut = list.filter((p) => p.cutAt !== null).length;
    results.push({
      db: kind,
      uploads: list.length,
      cut,
      taken,
      retriedTaken,
      fivexx,
      traffic,
      trafficFailures,
      crashed,
      leaked,
      rss,
      seconds,
      hostile: hostileResults,
    });
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
    )}). Bodies: a Mastodon archive tar.gz of ${mb(archive.length)} MB (POST /imports), camera-noise JPEGs of ${images.map((i) => mb(i.length)).join(' and ')} MB (POST /media). RSS after a full GC: at the start, every 50 uploads, at the end. Then ${HOSTILE} hostile uploads of each kind, ${CONCURRENCY} at a time, with the rate floor at ${FLOOR.UPLOAD_MIN_BYTES_PER_SECOND} bytes/s over ${FLOOR.UPLOAD_RATE_WINDOW_SECONDS} s (UPLOAD_MAX_CONCURRENT ${2 * CONCURRENCY}): a trickle of a byte every 500 ms (refused: 408), a tar and a tar.gz whose header declares a 1 TiB entry over 1 KB (422), a Content-Length twice the body then a half-close (400), a Content-Length of 1,000 before 200 KB (422); leaked blobs are counted after them.`,
  '',
  '| database | uploads (cut off) | crashes | 5xx | leaked blobs | whole ones taken | cut-off keys taken when sent again | normal requests (failed) | RSS (MiB) | wall |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  ...results.map(
    (r) =>
      `| ${r.db} | ${r.uploads} (${r.cut}) | ${r.crashed ? 1 : 0} | ${r.fivexx} | ${r.leaked} | ${r.taken}/${r.uploads - r.cut} | ${r.retriedTaken}/${r.cut} | ${r.traffic} (${r.trafficFailures}) | ${r.rss.map(mb).join(' → ')} | ${r.seconds.toFixed(0)} s |`,
  ),
  '',
  '| database | trickles refused (408) | 1 TiB tars refused (422) | 1 TiB tar.gz refused (422) | Content-Length over the body (400) | Content-Length under the body (422, or 400 from the parser) |',
  '|---|---:|---:|---:|---:|---:|',
  ...results.map((r) => {
    const c = (k: HostileKind) => `${r.hostile[k].refused}/${r.hostile[k].sent}`;
    return `| ${r.db} | ${c('trickle')} | ${c('tar-1TiB')} | ${c('tar.gz-1TiB')} | ${c('length-over')} | ${c('length-under')} |`;
  }),
].join('\n');
console.log(table);
writeSection(table, 'upload-soak');
const bad = results.some(
  (r) =>
    r.crashed ||
    r.fivexx ||
    r.leaked ||
    r.trafficFailures ||
    r.retriedTaken !== r.cut ||
    r.taken !== r.uploads - r.cut ||
    Object.values(r.hostile).some((x) => x.refused !== x.sent),
);
process.exit(bad ? 1 : 0);
