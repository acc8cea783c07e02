// Runs `cpa` for the tests, in an environment of its own (an empty config directory and none of
// the caller's CPA_* / DATA_DIR settings, so that a test sees only what it passes), two ways:
// - `cpaIn`: in this process, through `runCli` (clients/cli/src/run.ts) with its output captured
//   and the environment injected: what most tests use (no process start-up per command);
// - `cpa` / `spawnCpa`: the real binary (clients/cli/bin/cpa.js, which runs the compiled
//   clients/cli/dist) as a subprocess, for what only a process shows: the launcher and the build,
//   stdin, signals, a command that keeps running beside others (`stream`, `mcp`), the process's
//   time zone, the operator commands that open the database from the environment.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../clients/cli/src/run.js';
import { seedArtifact, seedPosts } from '../support/seed.js';
import type { TestServer } from '../support/server.js';
import { serverSuite } from '../support/suite.js';
import { unique } from '../support/api.js';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const cpaBin = path.join(projectRoot, 'clients/cli/bin/cpa.js');

/**
 * A bash function that makes `npx cpa …` in a documented example run the bin directly: npm's own
 * start-up (about a second a call) is left out. That `npx cpa` reaches the bin is tested in
 * cli.test.ts; any other `npx` command goes to the real one.
 */
export const NPX_CPA_SHIM = `npx() { if [ "$1" = cpa ]; then shift; node ${JSON.stringify(cpaBin)} "$@"; else command npx "$@"; fi; }`;

export interface CpaResult {
  /** The exit code; -1 when a signal ended the process (`signal` says which). */
  code: number;
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const home = mkdtempSync(path.join(os.tmpdir(), 'cpa-home-'));

/** The environment of a `cpa` subprocess: the inherited one without our settings, plus `env`. */
export function cpaEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(CPA_|DATA_DIR$|DATABASE_URL$|NODE_OPTIONS$|INSTANCE_MODE$)/.test(k)) continue;
    base[k] = v;
  }
  // CPA_REQUIRE_COMPILED: the tests run the compiled CLI that users run, never the TypeScript in
  // its place, and never a build older than its sources (the global setup builds it when stale).
  return { ...base, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), NO_COLOR: '1', CPA_REQUIRE_COMPILED: '1', ...env };
}

export interface CpaOptions {
  env?: Record<string, string>;
  input?: string;
  cwd?: string;
  /** Run this instead of `node clients/cli/bin/cpa.js` (e.g. `npx cpa`, or `bash -c …`). */
  command?: string[];
}

/** A `cpa` that keeps running (`stream`, `mcp`): its output so far, and a way to wait for some. */
export interface RunningCpa {
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves when stdout or stderr (so far or later) matches. */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp): Promise<void>;
  done: Promise<CpaResult>;
  /** Sends `signal` (SIGTERM unless told). */
  kill(signal?: NodeJS.Signals): void;
}

export function spawnCpa(args: string[], opts: CpaOptions = {}): RunningCpa {
  const [cmd, ...pre] = opts.command ?? [process.execPath, cpaBin];
  const child = spawn(cmd!, [...pre, ...args], { cwd: opts.cwd ?? projectRoot, env: cpaEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  const waiters: Array<() => void> = [];
  const check = () => waiters.splice(0).forEach((w) => w());
  child.stdout.on('data', (d: Buffer) => ((out.stdout += d.toString()), check()));
  child.stderr.on('data', (d: Buffer) => ((out.stderr += d.toString()), check()));
  const done = new Promise<CpaResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({ code: code ?? -1, signal, ...out });
      check();
    });
  });
  // A command that exits before reading its input (help, completion) closes the pipe: writing the
  // input then fails with EPIPE, which must not become an uncaught error of the test run. What the
  // command printed and its exit code are what the tests check.
  child.stdin.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  if (opts.input !== undefined) child.stdin.end(opts.input);
  return {
    get stdout() {
      return out.stdout;
    },
    get stderr() {
      return out.stderr;
    },
    waitFor(stream, pattern) {
      return new Promise((resolve, reject) => {
        const test = () => {
          if (pattern.test(out[stream])) return resolve();
          if (child.exitCode !== null)
            return reject(
              new Error(`cpa exited (${child.exitCode}) before ${stream} matched ${pattern}\n--- stdout:\n${out.stdout}\n--- stderr:\n${out.stderr}`),
            );
          waiters.push(test);
        };
        test();
      });
    },
    done,
    kill: (signal = 'SIGTERM') => child.kill(signal),
  };
}

export async function cpa(args: string[], opts: CpaOptions = {}): Promise<CpaResult> {
  return spawnCpa(args, { ...opts, input: opts.input ?? '' }).done;
}

/**
 * `cpa ARGS…` in this process, with the same environment as a subprocess would have; `tty`: stdout
 * and stderr are terminals. One at a time (the CLI's context is the module's): await each.
 */
export function cpaIn(args: string[], opts: { env?: Record<string, string>; tty?: boolean } = {}): Promise<CpaResult> {
  return runCli(args, { env: cpaEnv(opts.env), tty: opts.tty });
}

/** Parses stdout as JSON, failing with the whole output when it is not. */
export function json<T = Record<string, unknown>>(r: CpaResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${r.code}):\n${r.stdout}\n--- stderr:\n${r.stderr}`);
  }
}

/** Asserts the exit code, showing both streams when it is not the expected one. */
export function expectExit(r: CpaResult, code: number) {
  if (r.code !== code) throw new Error(`expected exit ${code}, got ${r.code}\n--- stdout:\n${r.stdout}\n--- stderr:\n${r.stderr}`);
}

/**
 * A test server for a file of `cpa` tests (started in beforeAll, stopped in afterAll; `env` is read
 * then: the settings of fakes started by a beforeAll registered before this call), with `run`
 * (cpa with its address and token) and seeds made through the CLI and the store.
 */
export function cliServer(env?: () => Record<string, string>) {
  const suite = serverSuite(env);
  const self = {
    get s(): TestServer {
      if (!suite.s) throw new Error('the server is not started yet');
      return suite.s;
    },
    get ws() {
      return suite.ws;
    },
    /** `cpa` in this process with the server's address and token. */
    run: (args: string[], env?: Record<string, string>) => cpaIn(['--base-url', self.s.url, '--token', self.s.token, ...args], { env }),
    /** The same through the binary, in a subprocess (stdin, the process's time zone). */
    spawn: (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
      cpa(['--base-url', self.s.url, '--token', self.s.token, ...args], opts),
    /** `cpa pipelines create`; an archive's handle by default (publishing needs no upstream). */
    async newPipeline(handle = 'cli-test-archive', intent = unique('intent')) {
      const r = await self.run(['pipelines', 'create', '--handle', handle, '--intent', intent, '--json']);
      expectExit(r, 0);
      return json<{ pipeline_id: string; run_id: string; resumed: boolean }>(r);
    },
    /** A new pipeline with `count` seeded posts. */
    async pipelineWithPosts(count: number, handle?: string) {
      const { pipeline_id } = await self.newPipeline(handle);
      return { pipelineId: pipeline_id, postIds: await seedPosts(self.s.running.deps, { workspaceId: self.ws, pipelineId: pipeline_id, count }) };
    },
    /** A new pipeline with one post and one artifact of it in `state`. */
    async artifact(state: string, opts: { handle?: string; text?: string } = {}) {
      const { pipelineId, postIds } = await self.pipelineWithPosts(1, opts.handle);
      const art = await seedArtifact(self.s.running.deps, { workspaceId: self.ws, pipelineId, postId: postIds[0]!, state, text: opts.text });
      return { pipelineId, postId: postIds[0]!, artifactId: art.id };
    },
  };
  return self;
}

/** Runs `steps` while `proc` keeps running, ending it if a step fails (so the test does not wait on it). */
export async function alongside<T>(proc: RunningCpa, steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (err) {
    proc.kill();
    throw err;
  }
}
