// Starting benchmark children (server.ts, hello.ts) and talking to them over IPC.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiClient, type ApiClient } from '../../clients/typescript/src/index.js';
import { createPgDatabase } from '../../test/support/database.js';
import type { Seeded } from './server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
/** Where `BENCH_CPU_PROF=1` makes every child write its CPU profile (`node --cpu-prof`). */
export const profileDir = path.join(root, 'build', 'bench-prof');

export interface Child<R> {
  ready: R;
  call<T = unknown>(cmd: string, args?: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Forks `file` (a .ts file next to this one) the same way for every child: tsx, --expose-gc,
 * optional --cpu-prof (a profile of the child's whole life; `wholeProfile: false` when the caller
 * profiles each measurement instead, as main.ts does).
 */
export async function startChild<R>(file: string, env: Record<string, string>, opts: { timeoutMs?: number; wholeProfile?: boolean } = {}): Promise<Child<R>> {
  const execArgv = ['--import', 'tsx', '--expose-gc'];
  if (process.env.BENCH_CPU_PROF === '1' && opts.wholeProfile !== false) {
    // One folder per child: node writes one profile per thread (tsx's loader runs in a worker),
    // named by pid and thread; the main thread's is the large one.
    const dir = path.join(profileDir, `${path.basename(file, '.ts')}-${env.BENCH_LABEL ?? 'x'}-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  }
  const child: ChildProcess = fork(path.join(here, file), [], {
    execArgv,
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  let next = 1;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const ready = await new Promise<R>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start in time`)), opts.timeoutMs ?? 120_000);
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before it was ready`)));
    child.on('message', (m: { type?: string; id?: number; result?: unknown; error?: string }) => {
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve(m as unknown as R);
        return;
      }
      const w = m.id === undefined ? undefined : waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id!);
      if (m.error) w.reject(new Error(m.error));
      else w.resolve(m.result);
    });
  });
  const call = <T>(cmd: string, args?: Record<string, unknown>) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, cmd, args });
    });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    ready,
    call,
    stop: async () => {
      await Promise.race([call('stop'), exited]).catch(() => {});
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

export interface ServerChild {
  child: Child<Seeded>;
  /** The typed client on the child's URL and token, without retries (a retry would hide a failure). */
  client: ApiClient;
  /** Stops the child, then drops its PostgreSQL database and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * A server child (server.ts) on a fresh database of `kind`: its own temporary data directory and,
 * for PostgreSQL, its own database (the admin URL from scripts/pg-start.sh when TEST_PG_ADMIN_URL is
 * not set). `env` adds to or overrides the defaults (PORT 0, the label, the data directory and
 * DATABASE_URL, empty for SQLite so that a DATABASE_URL of the parent's environment is not inherited).
 */
export async function startServerChild(
  kind: 'sqlite' | 'postgresql',
  label: string,
  env: Record<string, string> = {},
  opts: { wholeProfile?: boolean } = {},
): Promise<ServerChild> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `cp-bench-${label}-`));
  if (kind === 'postgresql') process.env.TEST_PG_ADMIN_URL ??= execFileSync('bash', [path.join(root, 'scripts/pg-start.sh')], { encoding: 'utf8' }).trim();
  const pg = kind === 'postgresql' ? await createPgDatabase() : null;
  const child = await startChild<Seeded>('server.ts', { BENCH_LABEL: label, DATA_DIR: dataDir, DATABASE_URL: pg?.url ?? '', PORT: '0', ...env }, opts);
  return {
    child,
    client: createApiClient({ baseUrl: child.ready.url, token: child.ready.token, maxRetries: 0 }),
    stop: async () => {
      await child.stop();
      try {
        await pg?.drop();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
