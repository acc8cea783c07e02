// The server as `npm start` runs it (server/main.ts in a process of its own), for the tests that
// must see what only a process shows: that it did not exit, its RSS, what it logged. With a
// watcher that polls GET /api/health while a test misbehaves against it (test/support/raw-http.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase, type TestDbKind } from './database.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ChildServer {
  url: string;
  port: number;
  token: string;
  db: TestDatabase;
  child: ChildProcess;
  /** What the process wrote so far (JSON log lines on stdout, anything else on stderr). */
  readonly stdout: string;
  readonly stderr: string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Its resident set size now (bytes), from /proc. */
  rss(): number;
  stop(): Promise<void>;
}

export async function startChildServer(opts: { env?: Record<string, string>; kind?: TestDbKind } = {}): Promise<ChildServer> {
  const db = await createTestDatabase(opts.kind);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    DATA_DIR: db.dataDir,
    LOG_LEVEL: 'info',
    NODE_OPTIONS: '',
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    ...opts.env,
  };
  if (!db.databaseUrl) delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const m = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"Content Pipeline is listening"/.exec(out.stdout);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', look);
    child.once('close', (code) => reject(new Error(`the server exited (${code}) before listening\n${out.stdout}\n${out.stderr}`)));
  });
  return {
    url,
    port: Number(new URL(url).port),
    token: readFileSync(path.join(db.dataDir, 'agent-token'), 'utf8').trim(),
    db,
    child,
    get stdout() {
      return out.stdout;
    },
    get stderr() {
      return out.stderr;
    },
    alive: () => child.exitCode === null && child.signalCode === null,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await db.drop();
    },
  };
}

export interface HealthWatch {
  /**
   * Stops polling; what it saw: the polls, the lone misses (a poll not answered 200 within the
   * bound, the next one answered), and the failures (two misses in a row: the server held).
   */
  stop(): Promise<{ polls: number; misses: number; failures: string[]; peakRss: number }>;
}

/**
 * Polls GET /api/health every `everyMs` on a new connection each time (an upload's connection
 * must not be the one that answers), each poll given `withinMs` to answer 200; samples RSS too.
 * A lone miss is counted but not a failure: on a shared, loaded machine (2 cores for several
 * test runs) a process may lose the CPU for a moment; an event loop held by the server shows as
 * misses in a row.
 */
export function watchHealth(server: ChildServer, withinMs = 500, everyMs = 50): HealthWatch {
  let polls = 0;
  let misses = 0;
  let peakRss = 0;
  let missedLast: string | null = null;
  const failures: string[] = [];
  let running = true;
  const poll = () =>
    new Promise<string | null>((resolve) => {
      const started = new Date().toISOString();
      const req = http.get(`${server.url}/api/health`, { agent: false, timeout: withinMs }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode === 200 ? null : `health answered ${res.statusCode} (${started})`));
      });
      req.once('timeout', () => req.destroy(new Error(`no answer within ${withinMs} ms`)));
      req.once('error', (err) => resolve(`health failed: ${err.message} (${started})`));
    });
  const loop = (async () => {
    while (running) {
      if (server.alive()) peakRss = Math.max(peakRss, server.rss());
      const miss = await poll();
      polls += 1;
      if (miss) {
        misses += 1;
        if (missedLast) failures.push(`${missedLast}, then ${miss}`);
      }
      missedLast = miss;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { polls, misses, failures, peakRss };
    },
  };
}
