// The benchmark suite (`npm run bench`): starts what it needs, measures, prints a table and
// rewrites the measured section of BENCHMARKS.md. Measurements (issue 7):
//   1. a bare Express 5 "hello" route in the same process setup: the baseline
//   2. GET /artifacts/{id}: auth, rate-limit headers, request and response validation on; at full
//      speed, then at half of that rate for its p99
//   3. the same with VALIDATE_RESPONSES=false
//   4. POST /posts/{id}/draft (idempotent, creates an artifact and a run) with fresh keys, then
//      the drafting runs still queued at the end and the time they take to drain; and its replay
//      (one key, over and over)
//   5. GET /pipelines/{id}/posts?limit=100
//   6. SSE fan-out to 1,000 and 5,000 idle subscribers; memory per idle subscriber
//   7. GET /pipelines/{id} (issue 12: the pipeline, its counts and its last run)
//   8. list pages (issue 23): GET /artifacts?limit=20 and ?limit=100 (each artifact as GET
//      /artifacts/{id} shows it), GET /pipelines?limit=20, next to GET /artifacts/{id} measured
//      on the same server, with the CPU per item
//   9. start-up: `npm start` to a 200 on /api/health, fresh and warm data directory (scripts/bench/startup.ts)
//  10. the inbox's first page (issue 33): GET /pipelines/{id}/inbox of a pipeline with 1,000
//      drafts in review (100 items, next_cursor, the counts over every page)
// on SQLite and on PostgreSQL (scripts/pg-start.sh). Options: `--db sqlite|postgresql`,
// BENCH_SECONDS (default 10), BENCH_LOG_LEVEL (default info, as in production),
// BENCH_CPU_PROF=1 (a CPU profile of the server for each measured run, in build/bench-prof/<time>/,
// named by database and scenario; the baseline's too).
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { kindsFromArgs, logger, type Kind } from './args.js';
import { profileDir, root, startChild, startServerChild, type Child } from './children.js';
import { measure, measurePaced, type Around, type LoadResult } from './load.js';
import { machine, markdown, printTable, writeSection, type Row } from './report.js';
import type { Seeded } from './server.js';
import { fanOut, type FanOutResult } from './sse.js';
import { measureStartup, median, startupVerdicts } from './startup.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const V1 = '/api/agent/v1';

const kinds = kindsFromArgs();
/** `--only=2,4`: run only these measurements (the baseline always runs), e.g. while profiling. */
const onlyArg = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const wanted = (n: number) => !onlyArg || onlyArg.split(',').includes(String(n));

const rows: Row[] = [];
const verdicts: string[] = [];
const log = logger('bench');

function row(scenario: string, db: string, r: LoadResult, note = ''): Row {
  const problems = [r.non2xx ? `${r.non2xx} non-2xx` : '', r.errors ? `${r.errors} errors` : ''].filter(Boolean).join(', ');
  const out = { scenario, db, rps: r.rps, p50: r.p50, p99: r.p99, cpuUs: r.cpuUs, note: [note, problems].filter(Boolean).join('; ') };
  rows.push(out);
  log(
    `${scenario} (${db}): ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${Math.round(r.cpuUs ?? 0)} µs server CPU/req${out.note ? ` — ${out.note}` : ''}`,
  );
  return out;
}

/** The child's CPU time so far (µs): measure() turns it into CPU per request. */
const cpuOf = (child: Child<unknown>) => () => child.call<number>('cpu');

const profiling = process.env.BENCH_CPU_PROF === '1';
const profileRun = path.join(profileDir, new Date().toISOString().replace(/[:.]/g, '-'));
/** With BENCH_CPU_PROF=1, a CPU profile of `child` during one measured run: `<db>-<scenario>.cpuprofile`. */
function profiled(child: Child<unknown>, db: string, scenario: string): Around | undefined {
  if (!profiling) return undefined;
  mkdirSync(profileRun, { recursive: true });
  const file = path.join(
    profileRun,
    `${db}-${scenario
      .replace(/[^a-z0-9]+/gi, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase()}.cpuprofile`,
  );
  return { start: () => child.call('profileStart'), stop: () => child.call('profileStop', { file }).then(() => log(`profile: ${path.relative(root, file)}`)) };
}

/** `measure` with the server's CPU per request, profiled with BENCH_CPU_PROF=1. */
const measureOn = (child: Child<unknown>, db: string, scenario: string, spec: Parameters<typeof measure>[0]) =>
  measure(spec, cpuOf(child), profiled(child, db, scenario));

/** A fresh database of `kind` and a server child on it. */
async function startServer(kind: Kind, label: string, env: Record<string, string> = {}): Promise<{ server: Child<Seeded>; drop(): Promise<void> }> {
  const { child, stop } = await startServerChild(
    kind,
    `${kind}-${label}`,
    {
      HOST: '127.0.0.1',
      INSTANCE_MODE: 'desktop',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      // The quota is not what is measured: high enough never to refuse, the limiter still runs.
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...env,
    },
    { wholeProfile: false },
  );
  return { server: child, drop: stop };
}

const auth = (s: Seeded) => ({ Authorization: `Bearer ${s.token}` });

async function measureReads(kind: Kind, server: Child<Seeded>) {
  const s = server.ready;
  const artifact = { url: `${s.url}${V1}/artifacts/${s.artifactId}`, headers: auth(s), seconds: SECONDS };
  if (wanted(2)) {
    row(
      '2 floor: bare Express + the same store read',
      kind,
      await measureOn(server, kind, '2 floor', { url: s.floorUrl, seconds: SECONDS }),
      'findArtifact only: the database layer alone',
    );
    const full = row('2 GET artifact (validation on)', kind, await measureOn(server, kind, '2 GET artifact', artifact));
    const half = Math.max(1, Math.floor(full.rps! / 2));
    await server.call('loopReset');
    const paced = await measurePaced({ ...artifact, rate: half }, cpuOf(server));
    const loop = await server.call<{ p99: number; max: number }>('loop');
    // The server's event-loop delay meanwhile tells its own share of the latency tail from the machine's.
    row(
      '2 … at half of its max rate',
      kind,
      paced,
      `${half} req/s offered, evenly spaced (open loop); server event loop held up p99 ${loop.p99.toFixed(1)} ms, max ${loop.max.toFixed(1)} ms`,
    );
  }
  if (wanted(7)) {
    const pipeline = { url: `${s.url}${V1}/pipelines/${s.pipelineId}`, headers: auth(s), seconds: SECONDS };
    row('7 GET pipeline', kind, await measureOn(server, kind, '7 GET pipeline', pipeline));
  }
  if (wanted(8)) await measureLists(kind, server);
  if (wanted(10)) {
    const inbox = { url: `${s.url}${V1}/pipelines/${s.inboxPipelineId}/inbox`, headers: auth(s), seconds: SECONDS };
    row('10 GET inbox, first page of 1,000 drafts', kind, await measureOn(server, kind, '10 GET inbox', inbox), 'getPipelineInbox: 100 items and the counts');
  }
  if (!wanted(5)) return;
  const posts = { url: `${s.url}${V1}/pipelines/${s.pipelineId}/posts?limit=100`, headers: auth(s), seconds: SECONDS };
  row('5 GET posts, pages of 100', kind, await measureOn(server, kind, '5 GET posts', posts));
}

/** Scenario 8: list pages beside GET /artifacts/{id} on the same server (measured here too unless scenario 2 ran). */
async function measureLists(kind: Kind, server: Child<Seeded>) {
  const s = server.ready;
  const get = (url: string) => ({ url: `${s.url}${V1}${url}`, headers: auth(s), seconds: SECONDS });
  if (!wanted(2)) row('8 GET artifact (for comparison)', kind, await measureOn(server, kind, '8 GET artifact', get(`/artifacts/${s.artifactId}`)));
  for (const limit of [20, 100]) {
    row(
      `8 GET artifacts, a page of ${limit}`,
      kind,
      await measureOn(server, kind, `8 GET artifacts ${limit}`, get(`/artifacts?limit=${limit}`)),
      `listArtifacts: ${limit} artifacts, next_cursor`,
    );
  }
  row(
    '8 GET pipelines, a page of 20',
    kind,
    await measureOn(server, kind, '8 GET pipelines 20', get('/pipelines?limit=20')),
    'listPipelines: 2 pipelines with counts and last run',
  );
}

async function measureCreates(kind: Kind, server: Child<Seeded>) {
  const s = server.ready;
  const url = `${s.url}${V1}/posts/${s.postIds[1]}/draft`;
  const headers = { ...auth(s), 'Content-Type': 'application/json' };
  let n = 0;
  const stamp = Date.now().toString(36);
  const fresh = () => JSON.stringify({ idempotency_key: `bench-${kind}-${stamp}-${(n++).toString().padStart(8, '0')}` });
  type Commits = { batches: number; changes: number; fallbacks: number };
  const queuedBefore = await server.call<number>('queued');
  const commitsBefore = await server.call<Commits>('commits');
  const cpuBefore = await cpuOf(server)();
  const statementsBefore = await server.call<number>('statements');
  const creates = await measureOn(server, kind, '4 POST draft', { url, method: 'POST', headers, body: fresh, seconds: SECONDS });
  const commitsAfter = await server.call<Commits>('commits');
  // Whether the drafting runs kept up: the runs still queued or running when the load stops, and
  // how long the worker then takes to finish them (the requests' CPU above does not include it).
  const depth = (await server.call<number>('queued')) - queuedBefore;
  const drainStart = Date.now();
  while ((await server.call<number>('queued')) > queuedBefore && Date.now() - drainStart < 120_000) await new Promise((r) => setTimeout(r, 200));
  const drained = ((Date.now() - drainStart) / 1000).toFixed(1);
  // The server's CPU per create with its drafting run, the runs left at the end included.
  const withRun = Math.round((await cpuOf(server)()) - cpuBefore) / n;
  const statements = ((await server.call<number>('statements')) - statementsBefore) / n;
  const batches = commitsAfter.batches - commitsBefore.batches;
  const perBatch = batches ? ((commitsAfter.changes - commitsBefore.changes) / batches).toFixed(1) : '–';
  log(
    `creates (${kind}): run queue depth at the end ${depth} of ${n} created; drained in ${drained} s; group commit ${perBatch} changes per batch, ${commitsAfter.fallbacks - commitsBefore.fallbacks} fallbacks; ${Math.round(withRun)} µs server CPU and ${statements.toFixed(1)} statements per create with its run`,
  );
  row(
    '4 POST draft (fresh keys)',
    kind,
    creates,
    `draftFromPost: artifact + run per request; the worker drafts meanwhile; run queue depth at the end ${depth.toLocaleString('en-US')} of ${n.toLocaleString('en-US')} created, drained ${drained} s later; ${perBatch} changes per commit; ${Math.round(withRun).toLocaleString('en-US')} µs of server CPU and ${statements.toFixed(1)} statements per create with its run`,
  );
  const replay = JSON.stringify({ idempotency_key: `bench-${kind}-${stamp}-replayed-key` });
  const first = await fetch(url, { method: 'POST', headers, body: replay });
  if (first.status !== 202) throw new Error(`the first draft answered ${first.status}`);
  row(
    '4 … replay of one key',
    kind,
    await measureOn(server, kind, '4 replay', { url, method: 'POST', headers, body: replay, seconds: SECONDS }),
    'Idempotent-Replayed',
  );
}

const fanRows: Array<FanOutResult & { db: string }> = [];
async function measureFanOut(kind: Kind, server: Child<Seeded>) {
  for (const n of [1000, 5000]) {
    const r = await fanOut(server, n);
    fanRows.push({ ...r, db: kind });
    rows.push({
      scenario: `6 SSE fan-out, ${n.toLocaleString('en-US')} subscribers`,
      db: kind,
      rps: null,
      cpuUs: null,
      p50: r.p50,
      p99: r.p99,
      note: `all had it after ${r.allMedian.toFixed(1)} ms (median of ${r.events} events; worst ${r.allMax.toFixed(1)}); ${(r.heapPerSubscriber / 1024).toFixed(1)} KB heap, ${(r.rssPerSubscriber / 1024).toFixed(1)} KB RSS per idle subscriber${r.missed ? `; ${r.missed} missed` : ''}`,
    });
    log(
      `fan-out ${n} (${kind}): p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, all ${r.allMedian.toFixed(1)} ms; ${(r.heapPerSubscriber / 1024).toFixed(1)} KB heap/sub`,
    );
  }
}

async function benchKind(kind: Kind) {
  log(`${kind}: starting the server (validation of responses on)`);
  const on = await startServer(kind, 'validate-on');
  try {
    await measureReads(kind, on.server);
    if (wanted(6)) await measureFanOut(kind, on.server);
    // Last on this server: the runs it queues keep the worker busy for a while.
    if (wanted(4)) await measureCreates(kind, on.server);
  } finally {
    await on.drop();
  }
  if (wanted(3)) await variant(kind, '3 GET artifact (responses not validated)', { VALIDATE_RESPONSES: 'false' });
  // What the shared rate-limit counts cost: the same read with the counts in memory.
  if (wanted(2) && kind === 'postgresql') await variant(kind, '2 GET artifact, rate limit in memory', { RATE_LIMIT_STORE: 'memory' });
}

/** GET /artifacts/{id} on a server of its own, started with `env`. */
async function variant(kind: Kind, scenario: string, env: Record<string, string>) {
  log(`${kind}: starting a server with ${JSON.stringify(env)}`);
  const v = await startServer(kind, Object.values(env).join('-'), env);
  try {
    const s = v.server.ready;
    row(scenario, kind, await measureOn(v.server, kind, scenario, { url: `${s.url}${V1}/artifacts/${s.artifactId}`, headers: auth(s), seconds: SECONDS }));
  } finally {
    await v.drop();
  }
}

function judge(base: Row) {
  const find = (scenario: string, db: string) => rows.find((r) => r.scenario.startsWith(scenario) && r.db === db);
  const mark = (ok: boolean) => (ok ? 'met' : '**not met**');
  for (const kind of kinds) {
    const full = find('2 GET artifact (validation on)', kind);
    const half = find('2 …', kind);
    const on = full?.rps ?? 0;
    const off = find('3 GET artifact', kind)?.rps ?? 0;
    if (full?.rps)
      verdicts.push(
        `(2) ${kind}: ${(full.rps / base.rps!).toFixed(2)}× the baseline's requests per second (target ≥ 0.5×): ${mark(full.rps / base.rps! >= 0.5)}.`,
      );
    // Issue 12's targets for the query layer alone (Kysely instead of Prisma Client).
    const i12 = kind === 'sqlite' ? 0.4 : 0.3;
    if (full?.rps)
      verdicts.push(`(2, issue 12) ${kind}: GET artifact ${(full.rps / base.rps!).toFixed(2)}× (target ≥ ${i12}×): ${mark(full.rps / base.rps! >= i12)}.`);
    const pipeline = find('7 GET pipeline', kind);
    if (pipeline?.rps && kind === 'sqlite')
      verdicts.push(
        `(7, issue 12) ${kind}: GET pipeline ${(pipeline.rps / base.rps!).toFixed(2)}× (target ≥ 0.35×): ${mark(pipeline.rps / base.rps! >= 0.35)}.`,
      );
    // The same targets as CPU budgets: the ratios were set on Node 20, whose bare-Express baseline
    // cost 132 µs per request; on Node 26 it costs ~20 µs, less than the store read alone, so the
    // ratios above can no longer be met by any request path, and these budgets are what they meant.
    const budget = (what: string, r: Row | undefined, us: number) => {
      if (r?.cpuUs)
        verdicts.push(
          `(issue 12, as CPU) ${kind}: ${what} ${Math.round(r.cpuUs)} µs of server CPU per request (budget ≤ ${us} µs = 132 µs / the ratio): ${mark(r.cpuUs <= us)}.`,
        );
    };
    budget('GET artifact', full, kind === 'sqlite' ? 330 : 440);
    if (kind === 'sqlite') budget('GET pipeline', pipeline, 377);
    if (half?.p99 !== null && half?.p99 !== undefined)
      verdicts.push(`(2) ${kind}: p99 ${half.p99} ms at half of the max rate (target < 10 ms): ${mark(half.p99 < 10)}.`);
    const cpuOn = full?.cpuUs;
    const cpuOff = find('3 GET artifact', kind)?.cpuUs;
    const memory = find('2 GET artifact, rate limit in memory', kind);
    if (memory?.cpuUs && cpuOn)
      verdicts.push(
        `(2) ${kind}: the shared rate-limit counts cost ${Math.round(cpuOn - memory.cpuUs)} µs of server CPU per request (${Math.round(memory.rps ?? 0)} req/s with the counts in memory).`,
      );
    if (on && off) {
      const change = 100 * ((cpuOn ?? 0) / (cpuOff ?? 1) - 1);
      const cpu =
        cpuOn && cpuOff ? `; server CPU ${Math.round(cpuOff)} → ${Math.round(cpuOn)} µs per request (${change >= 0 ? '+' : ''}${change.toFixed(0)}%)` : '';
      verdicts.push(
        `(3) ${kind}: response validation costs ${(100 * (1 - on / off)).toFixed(0)}% of the throughput (${Math.round(off)} → ${Math.round(on)} req/s)${cpu}.`,
      );
    }
  }
  for (const kind of kinds) {
    // (8, issue 23) a list page's CPU next to GET /artifacts/{id}'s, and per item.
    const single = find('2 GET artifact (validation on)', kind) ?? find('8 GET artifact', kind);
    for (const limit of [20, 100]) {
      const page = find(`8 GET artifacts, a page of ${limit}`, kind);
      if (page?.cpuUs && single?.cpuUs)
        verdicts.push(
          `(8) ${kind}: a page of ${limit} artifacts costs ${Math.round(page.cpuUs)} µs of server CPU (${(page.cpuUs / single.cpuUs).toFixed(1)}× GET /artifacts/{id}'s ${Math.round(single.cpuUs)} µs; ${Math.round(page.cpuUs / limit)} µs per artifact listed).`,
        );
    }
  }
  for (const kind of kinds) {
    const creates = find('4 POST draft', kind);
    const target = kind === 'sqlite' ? 1000 : 500;
    if (creates?.rps)
      verdicts.push(
        `(4, issue 12) ${kind}: ${Math.round(creates.rps)} creates per second (target ≥ ${target.toLocaleString('en-US')}): ${mark(creates.rps >= target)}.`,
      );
  }
  for (const f of fanRows.filter((x) => x.subscribers === 5000)) {
    verdicts.push(
      `(6) ${f.db}: 5,000 subscribers, p99 ${f.p99.toFixed(1)} ms to deliver one event (target < 100 ms): ${mark(f.p99 < 100)}; ${(f.heapPerSubscriber / 1024).toFixed(1)} KB per idle subscriber (target < 20 KB): ${mark(f.heapPerSubscriber < 20 * 1024)}.`,
    );
  }
}

async function main() {
  const started = Date.now();
  const loadAtStart = os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(', ');
  if (kinds.includes('postgresql')) {
    process.env.TEST_PG_ADMIN_URL = execFileSync('bash', [path.join(root, 'scripts', 'pg-start.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  }
  log('baseline: bare Express 5 hello');
  const hello = await startChild<{ url: string }>('hello.ts', { BENCH_LABEL: 'baseline' }, { wholeProfile: false });
  let base: Row;
  try {
    base = row('1 baseline: Express 5 hello', '–', await measureOn(hello, 'none', '1 baseline', { url: `${hello.ready.url}/hello`, seconds: SECONDS }));
  } finally {
    await hello.stop();
  }
  for (const kind of kinds) await benchKind(kind);
  judge(base);
  // Start-up (issue 27): `npm start` to a 200 on /api/health, compiled and as tsx ran it before.
  if (wanted(9)) {
    const started = await measureStartup();
    verdicts.push(...startupVerdicts(started));
    for (const r of started.filter((x) => !x.variant.startsWith('compiled')))
      verdicts.push(
        `(9) ${r.variant}, ${r.data} data directory, for comparison: ${median(r.wallMs).toFixed(0)} ms wall, ${median(r.cpuMs).toFixed(0)} ms CPU.`,
      );
  }
  printTable(rows, base);
  for (const v of verdicts) console.log(v.replace(/\*\*/g, ''));
  // A partial run (--only, --db) is for investigating: it leaves BENCHMARKS.md alone.
  const complete = !onlyArg && kinds.length === 2;
  if (complete) writeSection(markdown(rows, base, verdicts, machine(), SECONDS, loadAtStart));
  log(`done in ${Math.round((Date.now() - started) / 1000)} s${complete ? '; BENCHMARKS.md updated' : ''}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
