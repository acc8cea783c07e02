// SSE fan-out: N idle subscribers on GET /api/stream (plain sockets on 127.0.0.1, so that the
// client side costs as little as possible on a shared 2-core machine), then one event at a time
// recorded in the server (as the domain does: outbox insert, commit, wake); the time from the
// command to each subscriber's receipt of the frame. Memory per idle subscriber is the server's
// heap (+ external) and RSS growth after a full GC, divided by N.
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Child } from './children.js';
import type { Seeded } from './server.js';

export interface FanOutResult {
  subscribers: number;
  events: number;
  /** Over every (subscriber, event) delivery, ms. */
  p50: number;
  p99: number;
  /** Median over the events of the time until the last subscriber had it, ms. */
  allMedian: number;
  /** The worst of those, ms. */
  allMax: number;
  heapPerSubscriber: number;
  rssPerSubscriber: number;
  missed: number;
}

interface Sub {
  socket: net.Socket;
  tail: string;
  marker: string | null;
  onSeen: (() => void) | null;
}

type Mem = { rss: number; heapUsed: number; external: number };

function openSub(port: number, token: string): Promise<Sub> {
  return new Promise((resolve, reject) => {
    const sub: Sub = { socket: net.connect(port, '127.0.0.1'), tail: '', marker: null, onSeen: null };
    sub.socket.setNoDelay(true);
    sub.socket.once('error', reject);
    sub.socket.once('connect', () => {
      sub.socket.write(`GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`);
    });
    let opened = false;
    sub.socket.on('data', (chunk: Buffer) => {
      const text = sub.tail + chunk.toString('latin1');
      if (!opened) {
        if (!text.startsWith('HTTP/1.1 200')) return reject(new Error(`stream refused: ${text.slice(0, 80)}`));
        opened = true;
        resolve(sub);
      }
      if (sub.marker && text.includes(sub.marker)) {
        sub.marker = null;
        sub.onSeen?.();
      }
      sub.tail = text.slice(-64);
    });
  });
}

async function openAll(port: number, token: string, n: number): Promise<Sub[]> {
  const subs: Sub[] = [];
  // In batches, so that the listen backlog never overflows.
  for (let i = 0; i < n; i += 250) {
    subs.push(...(await Promise.all(Array.from({ length: Math.min(250, n - i) }, () => openSub(port, token)))));
  }
  return subs;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One event to every subscriber: resolves with each subscriber's latency (ms), NaN for a miss. */
async function oneEvent(server: Child<Seeded>, subs: Sub[], marker: string): Promise<number[]> {
  const latencies = new Array<number>(subs.length).fill(NaN);
  let left = subs.length;
  let t0 = 0;
  const all = new Promise<void>((resolve) => {
    subs.forEach((s, i) => {
      s.marker = marker;
      s.onSeen = () => {
        latencies[i] = performance.now() - t0;
        if (--left === 0) resolve();
      };
    });
  });
  t0 = performance.now();
  await server.call('emit', { marker });
  await Promise.race([all, new Promise((r) => setTimeout(r, 10_000))]);
  for (const s of subs) s.marker = null;
  return latencies;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export async function fanOut(server: Child<Seeded>, n: number, events = 5): Promise<FanOutResult> {
  const port = Number(new URL(server.ready.url).port);
  const before = await server.call<Mem>('mem');
  const subs = await openAll(port, server.ready.token, n);
  try {
    await until(`${n} subscribers`, async () => (await server.call<number>('subscribers')) >= n, 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = await server.call<Mem>('mem');
    const every: number[] = [];
    const lasts: number[] = [];
    let missed = 0;
    for (let k = 0; k < events; k++) {
      const lat = await oneEvent(server, subs, `art_fan${n}x${k}x${Date.now()}`);
      const got = lat.filter((x) => !Number.isNaN(x));
      missed += lat.length - got.length;
      every.push(...got);
      lasts.push(Math.max(...got));
      await new Promise((r) => setTimeout(r, 300));
    }
    every.sort((a, b) => a - b);
    lasts.sort((a, b) => a - b);
    return {
      subscribers: n,
      events,
      p50: pct(every, 50),
      p99: pct(every, 99),
      allMedian: pct(lasts, 50),
      allMax: lasts[lasts.length - 1] ?? NaN,
      heapPerSubscriber: (idle.heapUsed + idle.external - before.heapUsed - before.external) / n,
      rssPerSubscriber: (idle.rss - before.rss) / n,
      missed,
    };
  } finally {
    for (const s of subs) s.socket.destroy();
    await until('the streams to close', async () => (await server.call<number>('subscribers')) === 0, 30_000).catch(() => {});
  }
}
