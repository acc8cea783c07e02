// `npm run bench:schedule`: the scheduler's figure. 10,000 artifacts of a Mastodon pipeline are
// seeded through the store, each `scheduled` with its queued `publish` run, all due at the same
// instant; the real server (in this process, its worker at WORKER_CONCURRENCY) publishes them to
// the local Mastodon fake (HTTPS, in this process too). Reports the delay of the last one (its
// run's finish minus the due time), the median, the throughput, and duplicates counted at the
// fake's wire (POSTs per text, before the fake's own Idempotency-Key dedupe), and writes the
// `schedule` section of BENCHMARKS.md. Options: `--db sqlite|postgresql`, `--n N` (default
// 10000), `--concurrency C` (default 8).
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '../../test/support/database.js';
import { outboundEnvFor } from '../../test/support/https-fake.js';
import { mastodonStatus, startMastodonFake } from '../../test/support/platforms.js';
import { connect, ingest, listAllPosts } from '../../test/support/api.js';
import { workspaceOf } from '../../test/support/seed.js';
import { startTestServer } from '../../test/support/server.js';
import { root } from './children.js';
import { arg, kindsFromArgs, logger, type Kind } from './args.js';
import { writeSection } from './report.js';

const kinds = kindsFromArgs();
const N = Number(arg('n') ?? 10_000);
const CONCURRENCY = Number(arg('concurrency') ?? 8);
const log = logger('bench:schedule');
const BATCH = 500;

interface Result {
  db: Kind;
  n: number;
  lastDelay: number;
  medianDelay: number;
  firstDelay: number;
  rate: number;
  duplicates: number;
  missing: number;
  attempts: number;
}
const results: Result[] = [];

const texts = Array.from({ length: N }, (_, i) => `Scheduled #${i}: release notes for v2.${i % 40} 🚀 東京・שלום · https://blog.example.org/r/${i} #release`);

for (const kind of kinds) {
  if (kind === 'postgresql') process.env.TEST_PG_ADMIN_URL ??= execFileSync('bash', [path.join(root, 'scripts/pg-start.sh')], { encoding: 'utf8' }).trim();
  const db = await createTestDatabase(kind);
  const mastodon = await startMastodonFake({ statuses: [mastodonStatus(1)] });
  const s = await startTestServer({ db, env: { ...outboundEnvFor(mastodon.fake), WORKER_CONCURRENCY: String(CONCURRENCY), JOB_POLL_MS: '1000' } });
  try {
    const deps = s.running.deps;
    const { account } = await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    const { pipeline_id } = await ingest(s, mastodon.handle);
    const [post] = await listAllPosts(s, pipeline_id);
    const workspaceId = await workspaceOf(deps, s.token);
    // Seeded through the store, due far away; then all moved to one instant with one update each.
    const far = new Date(Date.now() + 24 * 3600_000);
    const now = new Date();
    log(`${kind}: seeding ${N} scheduled artifacts and their runs…`);
    for (let i = 0; i < N; i += BATCH) {
      const slice = texts
        .slice(i, i + BATCH)
        .map((text, k) => ({ text, id: `art_bench${String(i + k).padStart(6, '0')}`, run: `run_bench${String(i + k).padStart(6, '0')}` }));
      await deps.db
        .insertInto('Artifact')
        .values(
          slice.map((a) => ({
            id: a.id,
            workspaceId,
            pipelineId: pipeline_id,
            sourcePostId: post.id,
            rootArtifactId: a.id,
            text: a.text,
            state: 'scheduled',
            scheduledAt: far,
            publishRunId: a.run,
            // Approved, as the approval gate of a new workspace asks before a publish run posts.
            approvedAt: now,
            approvedBy: 'bench',
            createdAt: now,
            updatedAt: now,
          })),
        )
        .execute();
      // Each artifact's destination: the connected account, scheduled with its run (as a publish
      // with a time leaves it). Without one, the run has nowhere to post and fails.
      await deps.db
        .insertInto('ArtifactDestination')
        .values(
          slice.map((a) => ({
            artifactId: a.id,
            destination: account.id,
            workspaceId,
            accountId: account.id,
            platform: 'mastodon',
            handle: account.handle,
            position: 0,
            state: 'scheduled',
            runId: a.run,
            createdAt: now,
            updatedAt: now,
          })),
        )
        .execute();
      await deps.db
        .insertInto('Run')
        .values(
          slice.map((a) => ({
            id: a.run,
            workspaceId,
            pipelineId: pipeline_id,
            kind: 'publish',
            status: 'queued',
            input: JSON.stringify({ artifact_id: a.id }),
            createdAt: now,
            runAfter: far,
          })),
        )
        .execute();
    }
    const due = new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000);
    await deps.db.updateTable('Run').set({ runAfter: due }).where('kind', '=', 'publish').where('id', 'like', 'run_bench%').execute();
    await deps.db.updateTable('Artifact').set({ scheduledAt: due }).where('id', 'like', 'art_bench%').execute();
    log(`${kind}: all due at ${due.toISOString()}; waiting…`);
    for (;;) {
      const open = await deps.db
        .selectFrom('Run')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('id', 'like', 'run_bench%')
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow();
      if (Number(open.n) === 0) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const runs = await deps.db.selectFrom('Run').select(['status', 'finishedAt', 'attempts']).where('id', 'like', 'run_bench%').execute();
    const failed = runs.filter((r) => r.status !== 'succeeded').length;
    if (failed) log(`${kind}: ${failed} runs did not succeed`);
    const delays = runs.map((r) => (r.finishedAt ? new Date(r.finishedAt).getTime() - due.getTime() : Infinity)).sort((a, b) => a - b);
    const wire = new Map<string, number>();
    for (const r of mastodon.fake.requests) {
      if (r.method !== 'POST' || r.url !== '/api/v1/statuses') continue;
      const t = (JSON.parse(r.body.toString()) as { status: string }).status;
      wire.set(t, (wire.get(t) ?? 0) + 1);
    }
    const duplicates = [...wire.values()].filter((c) => c > 1).length;
    const missing = texts.filter((t) => !wire.has(t)).length;
    const published = await deps.db
      .selectFrom('Artifact')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('id', 'like', 'art_bench%')
      .where('state', '=', 'published')
      .executeTakeFirstOrThrow();
    const lastDelay = delays[delays.length - 1]! / 1000;
    const r: Result = {
      db: kind,
      n: Number(published.n),
      lastDelay,
      medianDelay: delays[Math.floor(delays.length / 2)]! / 1000,
      firstDelay: delays[0]! / 1000,
      rate: N / lastDelay,
      duplicates,
      missing,
      attempts: runs.reduce((a, x) => a + x.attempts, 0),
    };
    log(
      `${kind}: ${r.n}/${N} published; last ${r.lastDelay.toFixed(1)} s after due, median ${r.medianDelay.toFixed(1)} s, ${r.rate.toFixed(0)} publishes/s; ${duplicates} duplicates, ${missing} missing at the wire; ${r.attempts} attempts`,
    );
    results.push(r);
    // A bench whose work failed measured nothing: say so and fail, rather than print a figure.
    if (failed || missing || duplicates || r.n !== N) {
      log(`${kind}: FAILED — ${failed} runs did not succeed, ${missing} texts never reached the fake, ${duplicates} posted twice, ${r.n}/${N} published`);
      process.exitCode = 1;
    }
  } finally {
    await s.stop();
    await mastodon.fake.close();
  }
}

if (process.exitCode) {
  console.error('bench:schedule: the work failed (above); BENCHMARKS.md left as it was');
  process.exit(1);
}

const table = [
  `${N.toLocaleString('en')} scheduled artifacts of one Mastodon pipeline, all due at the same instant, published by one instance (worker concurrency ${CONCURRENCY}) to the local HTTPS Mastodon fake (two requests per publish: verify_credentials and the status). Server, fake and bench share one process. Node ${process.version}, ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}, load average ${os.loadavg()[0]!.toFixed(1)} at the end.`,
  '',
  '| database | published | duplicates at the wire | missing | first done after due | median | last done after due | publishes/s | run attempts |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.db} | ${r.n.toLocaleString('en')} | ${r.duplicates} | ${r.missing} | ${r.firstDelay.toFixed(1)} s | ${r.medianDelay.toFixed(1)} s | ${r.lastDelay.toFixed(1)} s | ${r.rate.toFixed(0)} | ${r.attempts.toLocaleString('en')} |`,
  ),
].join('\n');
console.log(table);
writeSection(table, 'schedule');
