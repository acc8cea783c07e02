// The event stream against a real server: auth, the events filter (and 422 naming an unknown
// type), the retry hint and heartbeats, frames, workspace scoping, Last-Event-ID resumption
// across a reconnect while events keep coming (no gap, no duplicate), the slow-consumer drop,
// STREAM_MAX_SECONDS, and a clean end at shutdown.
import http from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { workspaceOf } from '../support/seed.js';
import { openStream, recordEvents, riffs } from '../support/stream-reader.js';

let s: TestServer;
let short: TestServer;
let ws: string;

beforeAll(async () => {
  [s, short] = await Promise.all([
    startTestServer({ env: { STREAM_HEARTBEAT_SECONDS: '1' } }),
    startTestServer({ env: { STREAM_MAX_SECONDS: '1', STREAM_HEARTBEAT_SECONDS: '60' } }),
  ]);
  ws = await workspaceOf(s.running.deps, s.token);
});
afterAll(async () => {
  await Promise.all([s?.stop(), short?.stop()]);
});

describe('connecting', () => {
  it('needs the bearer token', async () => {
    const none = await s.client('').GET('/api/stream', { parseAs: 'stream' });
    expect(none.response.status).toBe(401);
    expect(none.error?.error.code).toBe('unauthorized');
    const wrong = await s.client('0'.repeat(64)).GET('/api/stream', { parseAs: 'stream' });
    expect(wrong.response.status).toBe(401);
  });

  it('refuses an unknown event type with 422 naming the filter (the contract lists the names: the validator refuses it first)', async () => {
    const r = await s.client().GET('/api/stream', { params: { query: { events: 'riff.ready,bogus.kind' } }, parseAs: 'stream' });
    expect(r.response.status).toBe(422);
    expect(r.error?.error.code).toBe('validation_failed');
    expect(r.error?.error.message).toBe("query.events is not of the form the operation's description gives");
  });

  it('answers text/event-stream with the retry hint first, then a heartbeat comment every STREAM_HEARTBEAT_SECONDS', async () => {
    const st = await openStream(s.client());
    try {
      expect(st.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(st.response.headers.get('x-request-id')).toMatch(/^req_/);
      expect(st.response.headers.get('ratelimit-limit')).toBe('600');
      const beats = await st.waitForComments(2, 5000);
      expect(beats).toEqual(['heartbeat', 'heartbeat']);
      expect(st.retry).toBe(3000);
      expect(st.events).toHaveLength(0);
    } finally {
      st.close();
    }
  });
});

it('HEAD answers the stream headers and ends (nothing stays open)', async () => {
  const hub = s.running.hub;
  const before = hub.stats.served;
  const r = await fetch(`${s.url}/api/stream`, { method: 'HEAD', headers: { Authorization: `Bearer ${s.token}` } });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
  await r.arrayBuffer();
  expect(hub.stats.served).toBe(before);
});

describe('live events', () => {
  it('sends each event as a frame with id, event and the envelope; filters by type; alternative names select their canonical type', async () => {
    const all = await openStream(s.client());
    const onlyRiffs = await openStream(s.client(), { events: 'riff.ready' });
    const posts = await openStream(s.client(), { events: 'social_post.ready' });
    try {
      const [r1] = await recordEvents(s.running.deps, ws, 'riff.ready', riffs(1, 'live'));
      const [p1] = await recordEvents(s.running.deps, ws, 'post.ready', [{ post_id: 'post_x1', operator_id: 'pl_x1' }]);
      const [r2] = await recordEvents(s.running.deps, ws, 'riff.ready', riffs(1, 'live2'));
      const frames = await all.waitForEvents(3);
      expect(frames.map((f) => [f.id, f.event])).toEqual([
        [r1!.id, 'riff.ready'],
        [p1!.id, 'post.ready'],
        [r2!.id, 'riff.ready'],
      ]);
      expect(all.envelopes()[0]).toEqual({
        id: r1!.id,
        type: 'riff.ready',
        created_at: r1!.created_at,
        data: { riff_id: 'art_live0', source_post_id: 'post_live0' },
      });
      expect(all.envelopes()[0]!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      await onlyRiffs.waitForEvents(2);
      await posts.waitForEvents(1);
      // Everything after the last wanted event has been dispatched: no stray frame may follow.
      await recordEvents(s.running.deps, ws, 'riff.ready', riffs(1, 'marker'));
      await onlyRiffs.waitForEvents(3);
      expect(onlyRiffs.events.map((f) => f.event)).toEqual(['riff.ready', 'riff.ready', 'riff.ready']);
      expect(onlyRiffs.events.slice(0, 2).map((f) => f.id)).toEqual([r1!.id, r2!.id]);
      expect(posts.events.map((f) => [f.id, f.event])).toEqual([[p1!.id, 'post.ready']]);
    } finally {
      all.close();
      onlyRiffs.close();
      posts.close();
    }
  });

  it("never sends another workspace's events", async () => {
    const otherToken = await s.newWorkspace('Other');
    const otherWs = await workspaceOf(s.running.deps, otherToken);
    const mine = await openStream(s.client());
    const theirs = await openStream(s.client(otherToken));
    try {
      const [foreign] = await recordEvents(s.running.deps, otherWs, 'brief.ready', [{ brief_id: 'art_foreign' }]);
      const [own] = await recordEvents(s.running.deps, ws, 'brief.ready', [{ brief_id: 'art_own' }]);
      expect((await mine.waitForEvents(1)).map((f) => f.id)).toEqual([own!.id]);
      expect((await theirs.waitForEvents(1)).map((f) => f.id)).toEqual([foreign!.id]);
      // A Last-Event-ID of another workspace is not a resume point: live events only.
      const probe = await openStream(s.client(), { lastEventId: foreign!.id });
      const [next] = await recordEvents(s.running.deps, ws, 'brief.ready', [{ brief_id: 'art_next' }]);
      expect((await probe.waitForEvents(1)).map((f) => f.id)).toEqual([next!.id]);
      probe.close();
    } finally {
      mine.close();
      theirs.close();
    }
  });
});

describe('resuming with Last-Event-ID', () => {
  it('gets every event after the last one received, then live ones, with no gap and no duplicate, while events keep coming', async () => {
    const first = await openStream(s.client(), { events: 'riff.refined' });
    const produced: string[] = [];
    let producing = true;
    const producer = (async () => {
      for (let i = 0; i < 60; i++) {
        const [e] = await recordEvents(s.running.deps, ws, 'riff.refined', [{ riff_id: `art_g${i}`, parent_id: `art_p${i}` }]);
        produced.push(e!.id);
        await new Promise((r) => setTimeout(r, 3));
      }
      producing = false;
    })();
    const got = await first.waitForEvents(10);
    first.close();
    const last = got[got.length - 1]!.id!;
    const second = await openStream(s.client(), { events: 'riff.refined', lastEventId: last });
    await producer;
    expect(producing).toBe(false);
    const after = produced.slice(produced.indexOf(last) + 1);
    const resumed = await second.waitForEvents(after.length);
    expect(resumed.map((f) => f.id)).toEqual(after);
    expect(got.map((f) => f.id)).toEqual(produced.slice(0, 10));
    // …and live events follow.
    const [live] = await recordEvents(s.running.deps, ws, 'riff.refined', [{ riff_id: 'art_live', parent_id: 'art_p' }]);
    await second.waitForEvents(after.length + 1);
    expect(second.events.map((f) => f.id)).toEqual([...after, live!.id]);
    second.close();
  });

  it('with an unknown id sends live events only', async () => {
    const st = await openStream(s.client(), { lastEventId: 'evt_00000000-0000-4000-8000-000000000000' });
    const [e] = await recordEvents(s.running.deps, ws, 'pattern.detected', [{ pattern_id: 'pat_1' }]);
    expect((await st.waitForEvents(1)).map((f) => f.id)).toEqual([e!.id]);
    st.close();
  });
});

/** A stream read through node:http, paused so that its socket stops reading (a slow consumer). */
function slowStream(url: string, token: string) {
  const frames: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => frames.push(e) });
  let res: http.IncomingMessage | undefined;
  const ended = new Promise<void>((resolve) => {
    const req = http.get(`${url}/api/stream?events=operator.error`, { headers: { Authorization: `Bearer ${token}` } }, (r) => {
      res = r;
      r.pause();
      r.on('data', (chunk: Buffer) => parser.feed(chunk.toString('utf8')));
      r.on('close', () => resolve());
      r.on('error', () => resolve());
    });
    req.on('error', () => resolve());
  });
  return { frames, ended, resume: () => res?.resume(), started: () => res !== undefined };
}

describe('a slow consumer', () => {
  it('is dropped when it falls too far behind, without holding up the others, and catches up with Last-Event-ID', async () => {
    const hub = s.running.hub;
    const droppedBefore = hub.stats.dropped;
    const slow = slowStream(s.url, s.token);
    const healthy = await openStream(s.client(), { events: 'operator.error' });
    while (!slow.started()) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));
    // Big frames (2,000 three-byte characters), so that the kernel's socket buffers fill soon.
    const big = '\u20ac'.repeat(2000);
    const produced: string[] = [];
    // Produce until the hub gives up on the slow one. The healthy stream reads everything
    // before the next batch comes, so it never falls behind.
    for (let batch = 0; batch < 40 && hub.stats.dropped === droppedBefore; batch++) {
      const evs = await recordEvents(
        s.running.deps,
        ws,
        'operator.error',
        Array.from({ length: 100 }, (_, i) => ({ operator_id: `pl_${batch}_${i}`, error: { code: 'credential_dead', message: big } })),
        { oneTransaction: true },
      );
      produced.push(...evs.map((e) => e.id));
      await healthy.waitForEvents(produced.length, 20_000);
    }
    expect(hub.stats.dropped).toBe(droppedBefore + 1);
    expect(healthy.events.map((f) => f.id)).toEqual(produced);
    healthy.close();
    // The slow one got a strict prefix, then the connection ended.
    slow.resume();
    await slow.ended;
    const prefix = slow.frames.map((f) => f.id);
    expect(prefix.length).toBeGreaterThan(0);
    expect(prefix.length).toBeLessThan(produced.length);
    expect(prefix).toEqual(produced.slice(0, prefix.length));
    // Resuming from its last complete event returns exactly the rest.
    const resumed = await openStream(s.client(), { events: 'operator.error', lastEventId: prefix[prefix.length - 1] });
    await resumed.waitForEvents(produced.length - prefix.length, 30_000);
    expect(resumed.events.map((f) => f.id)).toEqual(produced.slice(prefix.length));
    resumed.close();
  });
});

describe('the end of a stream', () => {
  it('comes after STREAM_MAX_SECONDS, cleanly, and the client resumes with Last-Event-ID', async () => {
    const wsShort = await workspaceOf(short.running.deps, short.token);
    const st = await openStream(short.client());
    const [e] = await recordEvents(short.running.deps, wsShort, 'webpage.ready', [{ webpage_id: 'src_1', snapshot_id: 'snap_1' }]);
    await st.waitForEvents(1);
    expect(await st.ended).toBe('end');
    expect(st.events.map((f) => f.id)).toEqual([e!.id]);
  });

  it('comes cleanly at shutdown', async () => {
    const st = await openStream(s.client());
    const [e] = await recordEvents(s.running.deps, ws, 'decode.ready', [{ post_id: 'post_1', decode_id: 'dec_1' }]);
    await st.waitForEvents(1);
    await s.running.stop();
    expect(await st.ended).toBe('end');
    expect(st.events.map((f) => f.id)).toEqual([e!.id]);
  });
});
