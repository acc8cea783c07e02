// HTTP load: autocannon for a measured run at full speed after a short warm-up (JIT, connection
// pools), and an open-loop paced generator (undici) for latency at a fixed rate. All traffic goes
// to 127.0.0.1.
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Pool } from 'undici';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Server CPU time per request (µs), when a probe of the server's CPU time was given. */
  cpuUs: number | null;
}

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fixed body, or one made per request (e.g. a fresh idempotency key). */
  body?: string | (() => string);
  connections?: number;
  seconds?: number;
  warmupSeconds?: number;
}

function once(spec: LoadSpec, seconds: number): Promise<LoadResult> {
  const { body } = spec;
  const request: Record<string, unknown> = { method: spec.method ?? 'GET', headers: spec.headers };
  if (typeof body === 'function') request.setupRequest = (req: Record<string, unknown>) => ({ ...req, body: body() });
  else if (body !== undefined) request.body = body;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: spec.url,
        connections: spec.connections ?? 32,
        duration: seconds,
        requests: [request],
      },
      (err: Error | null, r: autocannon.Result) => {
        if (err) return reject(err);
        resolve({
          rps: r.requests.average,
          p50: r.latency.p50,
          p99: r.latency.p99,
          requests: r.requests.total,
          non2xx: r.non2xx,
          errors: r.errors + r.timeouts,
          cpuUs: null,
        });
      },
    );
  });
}

/** Around a measured run (after the warm-up): e.g. a CPU profile of the server for that run alone. */
export interface Around {
  start(): Promise<unknown>;
  stop(): Promise<unknown>;
}

/**
 * Warm-up, then the measured run; `cpu` (the server's CPU time so far, µs) gives CPU per request;
 * `around` starts before the measured run and stops after it (the CPU figure is taken inside it,
 * so a profiler's own cost is in it: compare profiled runs with profiled runs).
 */
export async function measure(spec: LoadSpec, cpu?: () => Promise<number>, around?: Around): Promise<LoadResult> {
  const warm = spec.warmupSeconds ?? 2;
  if (warm > 0) await once(spec, warm);
  await around?.start();
  const before = await cpu?.();
  const r = await once(spec, spec.seconds ?? 10);
  const after = await cpu?.();
  await around?.stop();
  if (before !== undefined && after !== undefined && r.requests > 0) r.cpuUs = (after - before) / r.requests;
  return r;
}

/**
 * An open-loop load at a fixed rate: one request every 1/rate s, whatever the answers do, with
 * latency counted from when each request was due (so a stall shows up in the latencies instead of
 * thinning the load). autocannon's `overallRate` is not this: each connection sends its quota for
 * the second back to back and then waits for the next second, so "half the rate" arrives as
 * full-speed bursts. GET only (what the paced measurements need).
 */
export async function measurePaced(spec: Pick<LoadSpec, 'url' | 'headers' | 'seconds'> & { rate: number }, cpu?: () => Promise<number>): Promise<LoadResult> {
  const url = new URL(spec.url);
  const pool = new Pool(url.origin, { connections: 256 });
  const total = Math.round(spec.rate * (spec.seconds ?? 10));
  const interval = 1000 / spec.rate;
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const before = await cpu?.();
  const start = performance.now();
  const inflight: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    // Timers are good to about a millisecond: sleep only when there is time, else send at once.
    if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
    inflight.push(
      pool.request({ path: url.pathname + url.search, method: 'GET', headers: spec.headers }).then(
        async (res) => {
          await res.body.dump();
          if (res.statusCode >= 200 && res.statusCode < 300) latencies.push(performance.now() - due);
          else non2xx++;
        },
        () => {
          errors++;
        },
      ),
    );
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - start) / 1000;
  const after = await cpu?.();
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (p: number) => Math.round(10 * (latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN)) / 10;
  return {
    rps: total / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    requests: total,
    non2xx,
    errors,
    cpuUs: before !== undefined && after !== undefined ? (after - before) / total : null,
  };
}
