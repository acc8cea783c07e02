// The job worker: a run that was running when its process died is picked up by the next
// process; transient failures retry with backoff up to 5 attempts; concurrency is bounded; and
// several workers on one database never run a run twice.
// One database serves the whole file: the first server is "killed", the second one stays up.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../server/jobs/enqueue.js';
import { registeredJob, registerJob } from '../../server/jobs/registry.js';
import { JobWorker } from '../../server/jobs/worker.js';
import { findRunById } from '../../server/store/runs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { rssDocument, startFeedFake } from '../support/platforms.js';
import { archiveFixture, connect, ingestArchive, recordedEvents, startPipeline, V1 } from '../support/api.js';
import { waitForRun } from '../support/runs.js';
import { seedPosts, workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { countRows, findRow, updateRows } from '../support/rows.js';

const feedItems = (n: number) =>
  rssDocument(
    Array.from({ length: n }, (_, i) => ({
      guid: `g${i}`,
      title: `Entry ${i}`,
      description: `<p>Body of entry ${i}.</p>`,
      pubDate: new Date(Date.UTC(2026, 9, 1 + i)).toUTCString(),
    })),
  );

let db: TestDatabase;
let s: TestServer;
let flaky: Awaited<ReturnType<typeof startFeedFake>>;
let down: Awaited<ReturnType<typeof startFeedFake>>;
let slow: Awaited<ReturnType<typeof startFeedFake>>;
let stuck: Awaited<ReturnType<typeof startFeedFake>>;

beforeAll(async () => {
  db = await createTestDatabase();
  flaky = await startFeedFake({ xml: feedItems(3), failNext: 2, failStatus: 503 });
  down = await startFeedFake({ failNext: 1_000_000, failStatus: 502 });
  slow = await startFeedFake({ xml: feedItems(1), delayMs: 150 });
  stuck = await startFeedFake({ xml: feedItems(1) });
});

afterAll(async () => {
  await s?.stop();
  for (const f of [flaky, down, slow, stuck]) await f?.fake.close();
  await db?.drop();
});

describe('restart', () => {
  it('picks up a run that was running when its process died, and gives up on one interrupted too often', async () => {
    const env = { ...outboundEnvFor(flaky.fake, down.fake, slow.fake, stuck.fake), JOB_RETRY_BASE_MS: '10', WORKER_CONCURRENCY: '1' };
    const first = await startTestServer({ db, env: { ...env, SHUTDOWN_GRACE_SECONDS: '1' } });
    const { pipeline_id } = await ingestArchive(first, 'x-tweets.js', 'ada-x');
    const deps = first.running.deps;
    const workspaceId = (await findRow(deps.db, 'Pipeline', { id: pipeline_id })).workspaceId;
    const past = new Date(Date.now() - 60_000);
    // A run that a crashed process was running: status running, its lease long expired.
    const crashed = await enqueueRun(deps.db, deps, { workspaceId, pipelineId: pipeline_id, kind: 'ingest', input: {} });
    await updateRows(deps.db, 'Run', { id: crashed.id }, { status: 'running', attempts: 1, lockedBy: 'wrk_dead', lockedUntil: past, startedAt: past });
    // One that crashed on every one of its five attempts.
    const poisoned = await enqueueRun(deps.db, deps, { workspaceId, pipelineId: pipeline_id, kind: 'ingest', input: {} });
    await updateRows(deps.db, 'Run', { id: poisoned.id }, { status: 'running', attempts: 5, lockedBy: 'wrk_dead', lockedUntil: past, startedAt: past });
    // And one that is running when the process is stopped: handed back to the queue at once.
    stuck.state.delayMs = 30_000;
    const interrupted = await startPipeline(first, stuck.url);
    await waitForRun(deps, interrupted.run_id, { status: 'running' });
    await first.running.stop();
    stuck.state.delayMs = 0;

    // The next process on the same database (it also serves the rest of this file).
    s = await startTestServer({ db, env });
    const stoppedRun = await waitForRun(s.running.deps, interrupted.run_id);
    expect(stoppedRun.status).toBe('succeeded');
    // Started at once by the next process (not after the lease), and the attempt cut short by
    // the stop does not count.
    expect(stoppedRun.attempts).toBe(1);

    const resumed = await waitForRun(s.running.deps, crashed.id);
    expect(resumed.status).toBe('succeeded');
    expect(resumed.attempts).toBe(2);
    expect(resumed.lockedBy).toBeNull();
    const completed = await recordedEvents(s, 'ingest.completed');
    expect(completed.map((e) => e.data.run_id)).toContain(crashed.id);

    const abandoned = await waitForRun(s.running.deps, poisoned.id);
    expect(abandoned.status).toBe('failed');
    expect(abandoned.errorCode).toBe('abandoned');
    const errors = await recordedEvents(s, 'operator.error');
    expect(errors.some((e) => e.data.operator_id === pipeline_id && (e.data.error as { code: string }).code === 'abandoned')).toBe(true);
    // Two server starts (migrations included) on a busy machine: more than the default 30 s.
  }, 60_000);
});

describe('retries', () => {
  it('retries a transient upstream failure with backoff and succeeds', async () => {
    const { run_id } = await startPipeline(s, flaky.url);
    const run = await waitForRun(s.running.deps, run_id);
    expect(run.status).toBe('succeeded');
    expect(run.attempts).toBe(3);
    expect(run.errorCode).toBeNull();
    expect(flaky.fake.requests.length).toBe(3);
  });

  it('fails after five attempts with backend_unavailable and an operator.error', async () => {
    const { pipeline_id, run_id } = await startPipeline(s, down.url);
    const run = await waitForRun(s.running.deps, run_id);
    expect(run.status).toBe('failed');
    expect(run.attempts).toBe(5);
    expect(run.errorCode).toBe('backend_unavailable');
    expect(run.errorMessage).toMatch(/502/);
    expect(down.fake.requests.length).toBe(5);
    const evt = (await recordedEvents(s, 'operator.error')).find((e) => e.data.operator_id === pipeline_id);
    expect(evt?.data).toEqual({ operator_id: pipeline_id, error: { code: 'backend_unavailable', message: run.errorMessage } });
    // What GET /runs/{id} shows.
    const shown = await s.client().GET(`${V1}/runs/{id}`, { params: { path: { id: run_id } } });
    expect(shown.data?.status).toBe('failed');
    expect(shown.data?.error?.code).toBe('backend_unavailable');
  });

  it('does not retry a permanent failure (the feed is not found)', async () => {
    const before = slow.fake.requests.length;
    const { run_id } = await startPipeline(s, `${slow.fake.url}/missing.xml`);
    const run = await waitForRun(s.running.deps, run_id);
    expect(run.status).toBe('failed');
    expect(run.attempts).toBe(1);
    expect(run.errorCode).toBe('handle_not_found');
    expect(slow.fake.requests.length - before).toBe(1);
  });
});

describe('concurrency', () => {
  it('runs at most WORKER_CONCURRENCY jobs at once', async () => {
    const runs = await Promise.all([1, 2, 3].map((i) => startPipeline(s, `${slow.url}?n=${i}`)));
    for (const r of runs) expect((await waitForRun(s.running.deps, r.run_id)).status).toBe('succeeded');
    expect(slow.state.maxInFlight).toBe(1);
  });

  it('lets several workers on one database share the queue without running any run twice', async () => {
    // Two more workers with their own identities polling the same queue, as other instances would.
    const extra = [1, 2].map(
      () => new JobWorker(s.running.deps, pino({ level: 'silent' }), { concurrency: 4, pollMs: 10, retryBaseMs: 10, leaseMs: 60_000, stopGraceMs: 1000 }),
    );
    for (const w of extra) await w.start();
    try {
      await connect(s, { platform: 'archive', handle: 'shared', auth_material: archiveFixture('mastodon-outbox.json') });
      const started = await Promise.all(Array.from({ length: 12 }, (_, i) => startPipeline(s, 'shared', `intent ${i}`)));
      const runs = await Promise.all(started.map((r) => waitForRun(s.running.deps, r.run_id)));
      for (const r of runs) {
        expect(r.status).toBe('succeeded');
        // A run claimed twice would have counted two attempts.
        expect(r.attempts).toBe(1);
      }
      const completed = new Set((await recordedEvents(s, 'ingest.completed')).map((e) => e.data.run_id));
      for (const r of runs) expect(completed.has(r.id)).toBe(true);
      // Every post once per pipeline, although twelve ingests of the same archive ran side by side.
      const ids = new Set(started.map((r) => r.pipeline_id));
      expect(await countRows(s.running.deps.db, 'SourcePost', { pipelineId: [...ids] })).toBe(12 * 3);
    } finally {
      for (const w of extra) await w.stop();
    }
  });
});

describe('drafting slots', () => {
  it('runs a drafting run in a slot of its own while an ingest holds the only other slot', async () => {
    const deps = s.running.deps;
    // WORKER_CONCURRENCY is 1 in this file: an ingest whose feed answers slowly holds it.
    stuck.state.delayMs = 8_000;
    let ingestRunId: string;
    try {
      const ingest = await startPipeline(s, stuck.url);
      ingestRunId = ingest.run_id;
      await waitForRun(deps, ingest.run_id, { status: 'running' });
      const [postId] = await seedPosts(deps, { workspaceId: await workspaceOf(deps, s.token), pipelineId: ingest.pipeline_id, count: 1 });
      const res = await fetch(`${s.url}${V1}/posts/${postId}/draft`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ idempotency_key: `drafting-slot-${Date.now()}-key` }),
      });
      expect(res.status).toBe(202);
      const { run_id } = (await res.json()) as { run_id: string };
      expect((await waitForRun(deps, run_id)).status).toBe('succeeded');
      // Written while the ingest was still running: with one shared slot it would have waited for it.
      expect((await findRunById(deps.db, ingest.run_id))!.status).toBe('running');
    } finally {
      stuck.state.delayMs = 0;
    }
    expect((await waitForRun(deps, ingestRunId, { timeoutMs: 60_000 })).status).toBe('succeeded');
  });
});

describe('stopping', () => {
  it('hands back, without running them, the runs a claim under way at stop() brings in', async () => {
    // A database of its own, and a run due in ten minutes: the server's worker leaves it alone,
    // the worker made here, whose clock is twenty minutes ahead, claims it.
    const own = await startTestServer();
    const deps = own.running.deps;
    const original = registeredJob('draft')!;
    const ran: string[] = [];
    registerJob('draft', async (ctx) => {
      ran.push(ctx.run.id);
      return {};
    });
    // stop() is called while the worker's claim is under way: the clock is read just before the
    // claim query goes out, and the stop comes in as soon as that query yields.
    // Every step the worker takes reads its clock: none may come after stop() has returned.
    let trap = false;
    // Set by the clock's closure: a property, so that the compiler does not narrow it to its initial value.
    const stopping: { done?: Promise<void> } = {};
    let stopReturned = false;
    let readsAfterStop = 0;
    const clock = {
      now: () => {
        if (stopReturned) readsAfterStop++;
        if (trap) {
          trap = false;
          queueMicrotask(() => {
            stopping.done = w.stop().then(() => void (stopReturned = true));
          });
        }
        return new Date(Date.now() + 20 * 60_000);
      },
    };
    const inTenMinutes = { now: () => new Date(Date.now() + 10 * 60_000) };
    const w = new JobWorker({ ...deps, clock }, pino({ level: 'silent' }), {
      concurrency: 2,
      pollMs: 60_000,
      retryBaseMs: 10,
      leaseMs: 60_000,
      stopGraceMs: 1000,
    });
    try {
      const run = await enqueueRun(
        deps.db,
        { ...deps, clock: inTenMinutes },
        { workspaceId: await workspaceOf(deps, own.token), pipelineId: null, kind: 'draft', input: {} },
      );
      await w.start();
      trap = true; // start() has looked at the queue once (its sweep); the next read of the clock is the claim's
      w.kick();
      while (!stopping.done) await new Promise((r) => setTimeout(r, 5));
      await stopping.done;
      const after = await findRunById(deps.db, run.id);
      expect(after).toMatchObject({ status: 'queued', lockedBy: null, attempts: 0 });
      // Nothing starts it later either (a launch after stop() would have run it by now).
      await new Promise((r) => setTimeout(r, 200));
      expect(ran).toEqual([]);
      expect((await findRunById(deps.db, run.id))?.status).toBe('queued');
      // The claim was waited for and handed back before stop() returned (not after, when the
      // server goes on to close the database).
      expect(readsAfterStop).toBe(0);
    } finally {
      registerJob('draft', original.handler, { onSucceeded: original.onSucceeded, onFailed: original.onFailed });
      await w.stop();
      await own.stop();
    }
  });
});
