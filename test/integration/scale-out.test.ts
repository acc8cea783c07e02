// Two instances on one PostgreSQL database (what a team host behind a load balancer runs), each
// a real server with its own pools, worker and event hub. Proves: the per-token rate limit holds
// across them (shared counts), an idempotency key sent to both at once does the work once, an
// event committed on one reaches the streams of the other, and every queued run is executed by
// exactly one of the two workers. Skipped on SQLite (one instance per database there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerJob, registeredJob } from '../../server/jobs/registry.js';
import { createWorkspace } from '../../server/services/tokens.js';
import { upsertPipelineWithRun } from '../../server/store/pipelines.js';
import { enqueueRun } from '../../server/jobs/enqueue.js';
import { testDbKind } from '../support/database.js';
import { expectRunSucceeded } from '../support/runs.js';
import { seedPosts } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openStream, recordEvents } from '../support/stream-reader.js';
import { countRows } from '../support/rows.js';
import { V1 } from '../support/api.js';

const onPg = testDbKind() === 'postgresql';
/** Per token and minute; every test uses a token of its own, and only the first spends it all. */
const LIMIT = 40;

describe.skipIf(!onPg)('two instances on one PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    const env = { INSTANCE_MODE: 'team', RATE_LIMIT_PER_MINUTE: String(LIMIT), JOB_POLL_MS: '50', STREAM_HEARTBEAT_SECONDS: '60' };
    a = await startTestServer({ env });
    b = await startTestServer({ env, db: a.db });
  });
  afterAll(async () => {
    await b?.running.stop();
    await a?.stop();
  });

  /** A workspace of its own per test, so that each starts with a fresh quota. */
  async function workspace(name: string) {
    const { workspaceId, token } = await createWorkspace(a.running.deps, name);
    return { workspaceId, token, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } };
  }

  /** A pipeline and `n` posts in the workspace, written through the store. */
  async function posts(workspaceId: string, n: number) {
    const deps = a.running.deps;
    const { pipeline, answer: run } = await upsertPipelineWithRun(
      deps.db,
      {
        pipelineId: deps.ids.id('pl'),
        workspaceId,
        handle: `scale-${workspaceId}`,
        intent: 'Scale-out',
        tone: null,
        platform: 'archive',
        now: deps.clock.now(),
      },
      (tx, p) => enqueueRun(tx, deps, { workspaceId, pipelineId: p.id, kind: 'ingest', input: {} }),
    );
    // The seeding ingest (no account: it fails fast) must not count in the job test below.
    await expectRunSucceeded(deps, run.id).catch(() => {});
    return { pipelineId: pipeline.id, postIds: await seedPosts(deps, { workspaceId, pipelineId: pipeline.id, count: n }) };
  }

  it('holds one rate limit per token across the instances', async () => {
    // Far enough from a minute boundary that the whole sequence falls in one window.
    while (Date.now() % 60_000 > 55_000) await new Promise((r) => setTimeout(r, 250));
    const w = await workspace('Rate');
    const seen: Array<{ via: string; status: number; remaining: string | null }> = [];
    // Alternating between the instances until both refuse in a row (bounded).
    for (let i = 0; i < LIMIT + 10; i++) {
      const s = i % 2 ? b : a;
      const res = await fetch(`${s.url}${V1}/pipelines/pl_none`, { headers: w.headers });
      seen.push({ via: s === a ? 'A' : 'B', status: res.status, remaining: res.headers.get('ratelimit-remaining') });
      if (seen.length >= 2 && seen.slice(-2).every((x) => x.status === 429)) break;
    }
    // LIMIT requests allowed in all, whichever instance took them: the quota counts down across
    // both (an instance counting alone would have said LIMIT-1 twice, and allowed 2 × LIMIT). Each
    // instance leases a small block of the window at a time (docs/decisions.md), so their counts
    // interleave and one may refuse while the other still holds the last of its block: every
    // allowed request took a count of its own, and nothing past the limit was allowed.
    const allowed = seen.filter((x) => x.status === 404);
    expect(allowed).toHaveLength(LIMIT);
    expect(allowed.map((x) => Number(x.remaining)).sort((x, y) => y - x)).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));
    const refused = seen.filter((x) => x.status !== 404);
    expect(refused.every((x) => x.status === 429 && x.remaining === '0')).toBe(true);
    expect(refused.length).toBeLessThanOrEqual(3);
    expect(
      seen
        .slice(-2)
        .map((x) => x.via)
        .sort(),
    ).toEqual(['A', 'B']);
  });

  it('does the work of an idempotency key once when both instances receive it at the same moment', async () => {
    const w = await workspace('Idempotency');
    const { postIds } = await posts(w.workspaceId, 1);
    const draft = (s: TestServer, key: string) =>
      fetch(`${s.url}${V1}/posts/${postIds[0]}/draft`, { method: 'POST', headers: w.headers, body: JSON.stringify({ idempotency_key: key }) }).then(
        async (r) => ({
          status: r.status,
          replayed: r.headers.get('idempotent-replayed'),
          body: (await r.json()) as { run_id?: string; artifact_id?: string; error?: { code: string } },
        }),
      );
    const keys = Array.from({ length: 5 }, (_, i) => `scale-out-same-key-${i}-${Date.now()}`);
    for (const key of keys) {
      const [fromA, fromB] = await Promise.all([draft(a, key), draft(b, key)]);
      const ok = [fromA, fromB].filter((r) => r.status === 202);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      // The loser either replays the winner's answer or is told the first is still running.
      if (ok.length === 2) expect(ok[0]!.body).toEqual(ok[1]!.body);
      for (const r of [fromA, fromB].filter((x) => x.status !== 202)) {
        expect(r.status).toBe(409);
        expect(r.body.error?.code).toBe('state_conflict');
      }
    }
    // Once per key: one artifact (and one run) each, though every key reached both instances.
    const artifacts = await countRows(a.running.deps.db, 'Artifact', { workspaceId: w.workspaceId });
    const runs = await countRows(a.running.deps.db, 'Run', { workspaceId: w.workspaceId, kind: 'draft' });
    expect(artifacts).toBe(keys.length);
    expect(runs).toBe(keys.length);
    // A key finished on one instance is replayed by the other.
    const first = await draft(a, keys[0]!);
    const again = await draft(b, keys[0]!);
    expect(again.status).toBe(202);
    expect(again.replayed).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('delivers an event committed on one instance to the streams of the other', async () => {
    const w = await workspace('Events');
    const onB = await openStream(b.client(w.token));
    const onA = await openStream(a.client(w.token));
    try {
      // Recorded and woken on A only: B learns of it from PostgreSQL (NOTIFY), not from A's memory.
      const [fromA] = await recordEvents(a.running.deps, w.workspaceId, 'riff.ready', [{ riff_id: 'art_scale_a', source_post_id: 'post_scale_a' }]);
      const [fromB] = await recordEvents(b.running.deps, w.workspaceId, 'riff.ready', [{ riff_id: 'art_scale_b', source_post_id: 'post_scale_b' }]);
      for (const stream of [onA, onB]) {
        await stream.waitForEvents(2, 15_000);
        expect(stream.envelopes().map((e) => e.id)).toEqual([fromA!.id, fromB!.id]);
      }
    } finally {
      onA.close();
      onB.close();
    }
  });

  it('runs every queued job on exactly one of the two workers', async () => {
    const w = await workspace('Jobs');
    const { postIds } = await posts(w.workspaceId, 1);
    // Which instance's worker ran each run: the real draft job, wrapped to note whose deps it got
    // and to take a little longer, so that both workers have runs to compete for.
    const original = registeredJob('draft')!;
    const ranBy: Array<{ run: string; by: 'A' | 'B' }> = [];
    registerJob(
      'draft',
      async (ctx) => {
        ranBy.push({ run: ctx.run.id, by: ctx.deps === a.running.deps ? 'A' : 'B' });
        await new Promise((r) => setTimeout(r, 50));
        return original.handler(ctx);
      },
      { onSucceeded: original.onSucceeded, onFailed: original.onFailed },
    );
    try {
      const runIds: string[] = [];
      for (let i = 0; i < 24; i++) {
        const s = i % 2 ? b : a;
        const r = await fetch(`${s.url}${V1}/posts/${postIds[0]}/draft`, {
          method: 'POST',
          headers: w.headers,
          body: JSON.stringify({ idempotency_key: `scale-out-job-${i}-${Date.now()}` }),
        });
        expect(r.status).toBe(202);
        runIds.push(((await r.json()) as { run_id: string }).run_id);
      }
      for (const id of runIds) {
        const { run } = await expectRunSucceeded(a.running.deps, id, { timeoutMs: 30_000 });
        expect(run.attempts).toBe(1); // claimed once: a second claim would have counted a second attempt
      }
      expect(ranBy.map((r) => r.run).sort()).toEqual([...runIds].sort()); // each run executed once
      expect(new Set(ranBy.map((r) => r.by))).toEqual(new Set(['A', 'B'])); // and both workers took part
    } finally {
      registerJob('draft', original.handler, { onSucceeded: original.onSucceeded, onFailed: original.onFailed });
    }
  });
});
