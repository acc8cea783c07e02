// The stream on the wire: how the hub writes frames (one ready-made chunk per event written to
// every HTTP/1.1 socket, in slices of subscribers with a turn of the event loop between them;
// plain writes through the response for HTTP/1.0, which has no chunked coding).
import http from 'node:http';
import net from 'node:net';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chunkOf } from '../../server/events/subscriber.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { workspaceOf } from '../support/seed.js';
import { recordEvents } from '../support/stream-reader.js';

let s: TestServer;
let ws: string;

beforeAll(async () => {
  s = await startTestServer({ env: { STREAM_HEARTBEAT_SECONDS: '60' } });
  ws = await workspaceOf(s.running.deps, s.token);
});
afterAll(async () => {
  await s?.stop();
});

interface Listener {
  events: EventSourceMessage[];
  req: http.ClientRequest;
}

/** A stream read with node:http (which undoes the chunked coding) and parsed with eventsource-parser. */
function listen(): Promise<Listener> {
  return new Promise((resolve, reject) => {
    const l = { events: [] as EventSourceMessage[] } as Listener;
    const parser = createParser({ onEvent: (e) => l.events.push(e) });
    l.req = http.get(`${s.url}/api/stream`, { agent: false, headers: { Authorization: `Bearer ${s.token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream refused: ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (text: string) => parser.feed(text));
      resolve(l);
    });
    l.req.on('error', () => {});
  });
}

async function until(what: string, done: () => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('chunkOf frames data as one chunk of the chunked coding (size in hex)', () => {
  expect(chunkOf(Buffer.from('a'.repeat(26))).toString()).toBe(`1a\r\n${'a'.repeat(26)}\r\n`);
  // The size counts bytes, not characters.
  expect(chunkOf(Buffer.from('€')).toString()).toBe('3\r\n€\r\n');
});

it('fans events out to more subscribers than one slice: each gets every event once, in order, while others connect', async () => {
  const hub = s.running.hub;
  const first = await Promise.all(Array.from({ length: 450 }, () => listen()));
  await until('450 subscribers', () => hub.subscriberCount >= 450);
  const a = await recordEvents(
    s.running.deps,
    ws,
    'decode.ready',
    Array.from({ length: 5 }, (_, i) => ({ post_id: `post_${i}`, decode_id: `dec_${i}` })),
    { oneTransaction: true },
  );
  // Streams that connect while the first events are being fanned out get what comes after.
  const late = await Promise.all(Array.from({ length: 20 }, () => listen()));
  await until('470 subscribers', () => hub.subscriberCount >= 470);
  const b = await recordEvents(s.running.deps, ws, 'decode.ready', [{ post_id: 'post_x', decode_id: 'dec_x' }]);
  const all = [...a, ...b].map((e) => e.id);
  try {
    await until('every event at every early subscriber', () => first.every((l) => l.events.length >= all.length));
    for (const l of first) expect(l.events.map((e) => e.id)).toEqual(all);
    await until('the last event at every late subscriber', () => late.every((l) => l.events.some((e) => e.id === all[all.length - 1])));
    for (const l of late) {
      const ids = l.events.map((e) => e.id);
      // A strict suffix of the sequence: nothing twice, nothing out of order, nothing missing after the first.
      expect(ids).toEqual(all.slice(all.length - ids.length));
    }
    expect(JSON.parse(first[0]!.events[0]!.data)).toMatchObject({ id: all[0], type: 'decode.ready', data: { post_id: 'post_0' } });
  } finally {
    for (const l of [...first, ...late]) l.req.destroy();
  }
  await until('the streams to close', () => hub.subscriberCount === 0);
});

it('serves an HTTP/1.0 client (no chunked coding) with plain frames until the connection closes', async () => {
  const socket = net.connect(Number(new URL(s.url).port), '127.0.0.1');
  let raw = '';
  socket.setEncoding('utf8');
  socket.on('data', (t: string) => (raw += t));
  await new Promise((r) => socket.once('connect', r));
  socket.write(`GET /api/stream HTTP/1.0\r\nAuthorization: Bearer ${s.token}\r\n\r\n`);
  try {
    await until('the retry hint', () => raw.includes('retry: 3000'));
    const [e] = await recordEvents(s.running.deps, ws, 'decode.ready', [{ post_id: 'post_h', decode_id: 'dec_h' }]);
    await until('the event', () => raw.includes(`id: ${e!.id}`));
    const [head, body] = raw.split('\r\n\r\n', 2) as [string, string];
    expect(head).toMatch(/^HTTP\/1\.[01] 200/);
    expect(head.toLowerCase()).not.toContain('transfer-encoding');
    expect(body).toBe(`retry: 3000\n\nid: ${e!.id}\nevent: decode.ready\ndata: ${JSON.stringify(e)}\n\n`);
  } finally {
    socket.destroy();
  }
});
