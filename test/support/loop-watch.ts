// Watches the process a test server runs in while a test throws hostile input at it: polls
// GET /api/health (a new connection each time; every answer must be 200), and ticks a timer every
// 10 ms to find the longest the event loop was held. On a shared machine (2 cores, a load of
// 15+) a process can wait for a CPU for most of a second without doing anything wrong, so the
// hold is measured in CPU time of the main thread between two ticks (process.threadCpuUsage):
// synchronous work that keeps the loop from turning burns that thread's CPU; waiting for a
// core does not. The wall-clock figures are reported alongside, for the eye.
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, fetch } from 'undici';

/**
 * A connection of its own for each request (`pipelining: 0`: no keep-alive). A pooled connection
 * left idle while a test builds its next archive can be closed by the server just as it is
 * reused: on a loaded machine the client's expiry timer runs late, and the request fails with
 * ECONNRESET for no fault of the server.
 */
export const freshConnections = new Agent({ pipelining: 0 });

export interface LoopReport {
  polls: number;
  /** Slowest health answer, ms of wall clock. */
  worstHealthMs: number;
  /** Longest gap between two ticks of a 10 ms timer, ms of wall clock. */
  maxGapMs: number;
  /** Most main-thread CPU spent between two ticks: how long the event loop was held by work, ms. */
  maxHeldMs: number;
  /** Main-thread CPU spent while watched, ms (work that is linear in the input stays far under a quadratic one's). */
  cpuMs: number;
  /** Highest RSS seen minus the RSS when the watch started, bytes. */
  rssGrowth: number;
  /** Health answers other than 200. */
  failures: string[];
}

const cpuMs = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};

export function watchLoop(baseUrl: string, everyMs = 25): { stop(): Promise<LoopReport> } {
  const base = process.memoryUsage().rss;
  let peak = base;
  let worst = 0;
  let polls = 0;
  let maxGap = 0;
  let maxHeld = 0;
  const failures: string[] = [];
  let running = true;
  let lastWall = performance.now();
  let lastCpu = cpuMs();
  const firstCpu = lastCpu;
  const tick = setInterval(() => {
    const wall = performance.now();
    const cpu = cpuMs();
    maxGap = Math.max(maxGap, wall - lastWall);
    maxHeld = Math.max(maxHeld, cpu - lastCpu);
    lastWall = wall;
    lastCpu = cpu;
  }, 10);
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await fetch(`${baseUrl}/api/health`, { dispatcher: freshConnections });
        await res.arrayBuffer();
        if (res.status !== 200) failures.push(`health answered ${res.status}`);
      } catch (err) {
        failures.push(`health failed: ${(err as Error).message}`);
      }
      worst = Math.max(worst, performance.now() - started);
      polls += 1;
      peak = Math.max(peak, process.memoryUsage().rss);
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      clearInterval(tick);
      return {
        polls,
        worstHealthMs: Math.round(worst),
        maxGapMs: Math.round(maxGap),
        maxHeldMs: Math.round(maxHeld),
        cpuMs: Math.round(cpuMs() - firstCpu),
        rssGrowth: peak - base,
        failures,
      };
    },
  };
}
