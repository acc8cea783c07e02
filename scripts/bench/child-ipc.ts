// The IPC side of a benchmark child (the server under test, or the bare Express baseline): it
// announces itself with `ready`, then answers the parent's commands by id. Every child answers
// `mem` (after a full GC: the child runs with --expose-gc) and `stop`.
export type Command = { id: number; cmd: string; args?: Record<string, unknown> };
export type CommandHandler = (args: Record<string, unknown>) => unknown | Promise<unknown>;

export function memory() {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
}

export function serveCommands(ready: Record<string, unknown>, handlers: Record<string, CommandHandler>, stop: () => Promise<void>): void {
  const all: Record<string, CommandHandler> = {
    mem: () => memory(),
    /** CPU time (user + system, µs) this process has used: per request, it does not depend on how busy the machine is. */
    cpu: () => {
      const u = process.cpuUsage();
      return u.user + u.system;
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
