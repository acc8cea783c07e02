// How long `npm start`'s server takes from launch to a 200 on /api/health (issue 27's targets: under
// 1.5 s on a warm machine with an existing data directory, under 3 s on a fresh one, migrations
// included), for the compiled server (build/server/main.js, what `npm start` runs) and, for
// comparison, the same code compiled by tsx at start (what `npm start` ran before).
// Wall time is what a person waits; the CPU time of the server's process group up to that moment is
// reported beside it, since it is what a loaded machine stretches.
//   npm run bench:startup            (also part of `npm run bench`)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { logger } from './args.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const log = logger('startup');
const TICK_MS = 1000 / 100; // /proc's clock ticks (USER_HZ) on Linux

export interface StartupResult {
  variant: string;
  data: 'warm' | 'fresh';
  wallMs: number[];
  cpuMs: number[];
}

/** CPU ms (user + system, with reaped children) of every process whose process group is `pgid`. */
function groupCpuMs(pgid: number): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // after "pid (comm) ": state ppid pgrp ... utime(12) stime(13) cutime(14) cstime(15), 0-based from state
      if (Number(f[2]) !== pgid) continue;
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks * TICK_MS;
}

const portOf = (n: number) => 41_000 + (process.pid % 1000) * 7 + n;

/** One start: ms to the first 200 of /api/health, and the CPU it took; the server is stopped after. */
async function once(command: string[], dataDir: string, port: number): Promise<{ wallMs: number; cpuMs: number }> {
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    detached: true, // its own process group, so that the CPU of what it spawns is counted and it is stopped whole
    stdio: 'ignore',
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited with ${child.exitCode} before answering`);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/api/health`);
        if (r.status === 200) break;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (performance.now() - started > 120_000) throw new Error(`${command.join(' ')} did not answer within 120 s`);
    }
    const wallMs = performance.now() - started;
    return { wallMs, cpuMs: groupCpuMs(child.pid!) };
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // gone already
    }
    await exited;
  }
}

export const VARIANTS: Record<string, string[]> = {
  'compiled (npm start)': ['npm', 'start', '--silent'],
  'tsx at start (before)': [process.execPath, '--import', 'tsx', 'server/main.ts'],
};

/** `rounds` starts of each variant on an existing data directory, and `rounds` on a fresh one. */
export async function measureStartup(rounds = 5): Promise<StartupResult[]> {
  const results: StartupResult[] = [];
  let n = 0;
  for (const [variant, command] of Object.entries(VARIANTS)) {
    for (const data of ['fresh', 'warm'] as const) {
      const r: StartupResult = { variant, data, wallMs: [], cpuMs: [] };
      const warmDir = mkdtempSync(path.join(os.tmpdir(), 'cpa-bench-start-'));
      if (data === 'warm') await once(command, warmDir, portOf(n++)); // creates and migrates it
      for (let i = 0; i < rounds; i++) {
        const dir = data === 'warm' ? warmDir : mkdtempSync(path.join(os.tmpdir(), 'cpa-bench-start-'));
        const t = await once(command, dir, portOf(n++));
        r.wallMs.push(t.wallMs);
        r.cpuMs.push(t.cpuMs);
        if (dir !== warmDir) rmSync(dir, { recursive: true, force: true });
      }
      rmSync(warmDir, { recursive: true, force: true });
      log(`${variant}, ${data} data directory: median ${median(r.wallMs).toFixed(0)} ms to a 200 on /api/health, ${median(r.cpuMs).toFixed(0)} ms CPU`);
      results.push(r);
    }
  }
  return results;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The verdicts against issue 27's targets, for the compiled server. */
export function startupVerdicts(results: StartupResult[]): string[] {
  const target = { warm: 1500, fresh: 3000 };
  return results
    .filter((r) => r.variant.startsWith('compiled'))
    .map(
      (r) =>
        `(9, issue 27) start to /api/health, ${r.data} data directory: ${median(r.wallMs).toFixed(0)} ms wall, ${median(r.cpuMs).toFixed(0)} ms CPU (target < ${target[r.data]} ms): ${median(r.wallMs) < target[r.data] ? 'met' : '**not met**'}.`,
    );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 5);
  measureStartup(rounds).then(
    (results) => {
      console.log('| server | data directory | wall ms (median) | CPU ms (median) | wall ms (each) |');
      console.log('|---|---|---:|---:|---|');
      for (const r of results)
        console.log(
          `| ${r.variant} | ${r.data} | ${median(r.wallMs).toFixed(0)} | ${median(r.cpuMs).toFixed(0)} | ${r.wallMs.map((x) => x.toFixed(0)).join(', ')} |`,
        );
      for (const v of startupVerdicts(results)) console.log(v.replace(/\*\*/g, ''));
      console.log(
        `load average: ${os
          .loadavg()
          .map((x) => x.toFixed(1))
          .join(', ')}`,
      );
      process.exit(0);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
