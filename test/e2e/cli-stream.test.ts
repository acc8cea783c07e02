// `cpa stream` against a real server: filtered events as JSON lines, replay after --last-event-id,
// and a reconnect with backoff and Last-Event-ID across a server restart (same port, same
// database) that loses no event.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import v8 from 'node:v8';
import vm from 'node:vm';
import { followEvents, unwrap } from '../../clients/typescript/src/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { seedPosts, workspaceOf } from '../support/seed.js';
import { expectRunSucceeded } from '../support/runs.js';
import { alongside, cpaIn, expectExit, spawnCpa } from './support.js';
import { draftPost, newPipeline } from '../support/api.js';
import { insertRun } from '../../server/store/runs.js';

// Subprocesses and a restart: generous limits for a loaded machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let db: TestDatabase;
let s: TestServer;
let pipelineId: string;
let posts: string[];

beforeAll(async () => {
  db = await createTestDatabase();
  s = await startTestServer({ db });
  const created = await newPipeline(s, { handle: 'stream-archive', intent: 'stream' });
  pipelineId = created.pipeline_id;
  posts = await seedPosts(s.running.deps, { workspaceId: await workspaceOf(s.running.deps, s.token), pipelineId, count: 4 });
});
afterAll(async () => {
  await s?.running.stop();
  await db?.drop();
});

/** Drafts a post and waits for its run: the run emits riff.ready. */
async function draft(postId: string) {
  const accepted = await unwrap(draftPost(s, postId));
  await expectRunSucceeded(s.running.deps, accepted.run_id);
  return accepted.artifact_id;
}

type Envelope = { id: string; type: string; data: { riff_id?: string } };
const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Envelope);

describe('cpa stream', () => {
  it('prints the filtered events as JSON lines, and replays what came after --last-event-id', async () => {
    const tail = spawnCpa(['--base-url', s.url, '--token', s.token, 'stream', '--events', 'riff.ready', '--max-events', '2', '--json']);
    const [first, second] = await alongside(tail, async () => {
      await tail.waitFor('stderr', /connected/);
      return [await draft(posts[0]!), await draft(posts[1]!)];
    });
    const r = await tail.done;
    expectExit(r, 0);
    const events = lines(r.stdout);
    expect(events.map((e) => e.type)).toEqual(['riff.ready', 'riff.ready']);
    expect(events.map((e) => e.data.riff_id)).toEqual([first, second]);

    const replay = await cpaIn([
      '--base-url',
      s.url,
      '--token',
      s.token,
      'stream',
      '--events',
      'riff.ready',
      '--last-event-id',
      events[0]!.id,
      '--max-events',
      '1',
      '--json',
    ]);
    expectExit(replay, 0);
    expect(lines(replay.stdout)).toEqual([events[1]]);
  });

  it('reconnects with backoff after the server goes away, and resumes after the last event received', async () => {
    const port = new URL(s.url).port;
    const tail = spawnCpa(['--base-url', s.url, '--token', s.token, 'stream', '--events', 'riff.ready', '--max-events', '2', '--json']);
    const [before, after] = await alongside(tail, async () => {
      await tail.waitFor('stderr', /connected/);
      const first = await draft(posts[2]!);
      await tail.waitFor('stdout', /riff\.ready/);

      await s.running.stop();
      await tail.waitFor('stderr', /reconnecting in \d+\.\ds with Last-Event-ID evt_/);
      s = await startTestServer({ db, env: { PORT: port } });
      // this event is written while the client may still be waiting to reconnect: it must not be lost
      return [first, await draft(posts[3]!)];
    });
    const r = await tail.done;
    expectExit(r, 0);
    expect(lines(r.stdout).map((e) => e.data.riff_id)).toEqual([before, after]);
    expect(r.stderr).toMatch(/reconnected \(after evt_/);
  });

  it('ends with the error code on a refused token (no retry loop)', async () => {
    const r = await cpaIn(['--base-url', s.url, '--token', 'c'.repeat(64), 'stream']);
    expectExit(r, 3);
    const bad = await cpaIn(['--base-url', s.url, '--token', s.token, 'stream', '--events', 'no.such']);
    expectExit(bad, 4);
  });

  // A command line stops on a signal, always: `cpa stream` on a quiet stream used to keep waiting
  // for the next event after Ctrl-C or SIGTERM. No event comes here (nothing is scheduled).
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`ends on ${signal} while no event arrives, with exit ${code}`, async () => {
      const tail = spawnCpa(['--base-url', s.url, '--token', s.token, 'stream', '--events', 'artifact.scheduled']);
      await alongside(tail, () => tail.waitFor('stderr', /connected; waiting for events/));
      tail.kill(signal);
      const r = await tail.done;
      expect({ code: r.code, signal: r.signal }).toEqual({ code, signal: null });
      expect(r.stderr).toContain(`interrupted (${signal})`);
    });
  }
});

describe('followEvents (what cpa stream is built on)', () => {
  it('ends when its signal aborts on a quiet stream, even after a garbage collection', async () => {
    // The abort used to reach the body only through Request objects held weakly: once collected,
    // the loop waited for the next chunk for ever. A real collection, not a mock of one.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const controller = new AbortController();
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const events = followEvents(s.client(), { events: ['artifact.scheduled'], signal: controller.signal, onOpen: () => opened() });
    const received: unknown[] = [];
    const done = (async () => {
      for await (const e of events) received.push(e);
    })();
    await open;
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((r) => setImmediate(r));
    }
    controller.abort();
    await done; // without the fix: never (the test's own timeout fails it)
    expect(received).toEqual([]);
  }, 30_000);
});

describe('other commands that wait', () => {
  it('`cpa wait` on a run that is not due ends on SIGTERM', async () => {
    const runId = `run_${'0'.repeat(11)}wait`;
    await insertRun(s.running.deps.db, {
      id: runId,
      workspaceId: await workspaceOf(s.running.deps, s.token),
      pipelineId,
      kind: 'ingest',
      input: {},
      now: new Date(),
      runAfter: new Date(Date.now() + 86_400_000),
    });
    const wait = spawnCpa(['--base-url', s.url, '--token', s.token, 'wait', runId]);
    await alongside(wait, () => wait.waitFor('stderr', new RegExp(`run ${runId} \\(ingest\\): queued`)));
    wait.kill('SIGTERM');
    const r = await wait.done;
    expect(r.code === 143 || r.signal === 'SIGTERM', `${r.code} ${r.signal}`).toBe(true);
  });

  it('`accounts connect --auth-material-file -` waiting for its stdin ends on SIGINT', async () => {
    const connect = spawnCpa([
      '--base-url',
      s.url,
      '--token',
      s.token,
      'accounts',
      'connect',
      '--platform',
      'mastodon',
      '--handle',
      '@ada@mastodon.example',
      '--auth-material-file',
      '-',
    ]);
    // nothing is written to its stdin, which stays open: it reads it (synchronously) until the signal
    connect.kill('SIGINT');
    const r = await connect.done;
    expect(r.code === 130 || r.signal === 'SIGINT', `${r.code} ${r.signal}`).toBe(true);
  });
});
