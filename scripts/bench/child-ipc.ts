// The IPC side of a benchmark child (the server under test, or the bare Express baseline): it
// announces itself with `ready`, then answers the parent's commands by id. Every child answers
// `mem` (after a full GC: the child runs with --expose-gc), `cpu`, `loop` / `loopReset` (how long
// the event loop was held up: the server's own share of a latency tail), `profileStart` /
// `profileStop` (a V8 CPU profile of one measurement, through the inspector) and `stop`.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
export type Command = { id: number; cmd: string; args?: Record<string, unknown> };
/** Answers with a value or a promise of one. */
export type CommandHandler = (args: Record<string, unknown>) => unknown;

export function memory() {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
}

export function serveCommands(ready: Record<string, unknown>, handlers: Record<string, CommandHandler>, stop: () => Promise<void>): void {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let profiler: Session | undefined;
  loop.enable();
  const all: Record<string, CommandHandler> = {
    mem: () => memory(),
    loopReset: () => loop.reset(),
    /** Event-loop delay since the last reset, ms: how late timers ran because something held the loop. */
    loop: () => ({ p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 }),
    /** CPU time (user + system, µs) this process has used: per request, it does not depend on how busy the machine is. */
    cpu: () => {
      const u = process.cpuUsage();
      return u.user + u.system;
    },
    /** Starts a CPU profile of this process (main thread): one measurement's, stopped by `profileStop`. */
    profileStart: async () => {
      profiler ??= new Session();
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    },
    /** Stops the profile and writes it to `args.file` (a .cpuprofile that scripts/bench/profile.ts reads). */
    profileStop: async (args) => {
      if (!profiler) throw new Error('no profile started');
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      writeFileSync(String(args.file), JSON.stringify(profile));
      return { file: args.file };
    },
    ...handlers,
    // A normal exit, so that --cpu-prof writes its profile.
    stop: async () => {
      await stop();
      setImmediate(() => process.exit(0));
      return { stopped: true };
    },
  };
  process.on('message', (m: Command) => {
    const h = all[m.cmd];
    Promise.resolve()
      .then(() => (h ? h(m.args ?? {}) : Promise.reject(new Error(`unknown command ${m.cmd}`))))
      .then(
        (result) => process.send?.({ id: m.id, result }),
        (err: unknown) => process.send?.({ id: m.id, error: String(err) }),
      );
  });
  process.send?.({ type: 'ready', ...ready });
}
