// What only the `cpa` process shows: a reader that closes the pipe early (`cpa … | head`), and
// an unsupported Node (Node 20 in another terminal), through the real launcher (clients/cli/bin/cpa.js).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { satisfies, supportedRange } from '../../scripts/preflight.mjs';
import { cpaBin, cpaEnv, projectRoot } from './support.js';

const TOKEN = 'a'.repeat(64);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cpa-process-'));
writeFileSync(path.join(dataDir, 'agent-token'), `${TOKEN}\n`, { mode: 0o600 });

/** Runs cpa with `pre` node flags; `closeStdout`: the reader goes away before cpa writes (as `| head` does once it has its lines). */
function run(args: string[], opts: { pre?: string[]; closeStdout?: boolean } = {}) {
  const child = spawn(process.execPath, [...(opts.pre ?? []), cpaBin, ...args], {
    cwd: projectRoot,
    env: cpaEnv({ DATA_DIR: dataDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  if (opts.closeStdout) child.stdout.destroy();
  else child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}

/** Makes the process see another process.version (the real one is read-only but configurable). */
const pretend = (v: string) => `--import=data:text/javascript,Object.defineProperty(process,"version",{value:"${v}"})`;

describe('cpa and a closed stdout', () => {
  it('prints as usual when read', async () => {
    const r = await run(['token']);
    expect(r).toMatchObject({ code: 0, stdout: `${TOKEN}\n`, stderr: '' });
  });

  it('ends quietly with success when the reader closed the pipe (EPIPE), as git and gh do', async () => {
    const r = await run(['token'], { closeStdout: true });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('a fast cpa, from any folder', () => {
  const linked = path.join(projectRoot, 'node_modules/.bin/cpa');
  const tsxLoader = pathToFileURL(path.join(projectRoot, 'node_modules/tsx/dist/esm/index.mjs')).href;

  it('npm ci links node_modules/.bin/cpa to the launcher (npm does not link a project its own bin); it runs from another folder', () => {
    expect(readlinkSync(linked)).toBe('../../clients/cli/bin/cpa.js');
    const r = spawnSync(linked, ['--version'], { cwd: os.tmpdir(), env: cpaEnv(), encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe((JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it('cpa token outside the checkout (no DATA_DIR, no ./data there) reads the checkout’s data/agent-token, not a folder of the caller', () => {
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'cpa-elsewhere-'));
    const script = `import { desktopTokenFile } from ${JSON.stringify(path.join(projectRoot, 'clients/cli/src/settings.ts'))}; console.log(desktopTokenFile(undefined, '/srv/content-pipeline')); console.log(desktopTokenFile(undefined));`;
    const r = spawnSync(process.execPath, ['--import', tsxLoader, '--input-type=module', '-e', script], { cwd: elsewhere, env: cpaEnv(), encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(['/srv/content-pipeline/data/agent-token', path.join(projectRoot, 'data/agent-token')]);
    // Beside a desktop instance's ./data, that one wins, as before.
    mkdirSync(path.join(elsewhere, 'data'));
    writeFileSync(path.join(elsewhere, 'data/agent-token'), TOKEN);
    const here = spawnSync(process.execPath, ['--import', tsxLoader, '--input-type=module', '-e', script], { cwd: elsewhere, env: cpaEnv(), encoding: 'utf8' });
    expect(here.stdout.trim().split('\n')[0]).toBe(path.join(elsewhere, 'data/agent-token'));
  });
});

describe('cpa on an unsupported Node', () => {
  it('refuses with the preflight message (what to do), before anything can crash in the SQLite driver', async () => {
    const r = await run(['admin', 'workspace', 'create', '--name', 'Team A'], { pre: [pretend('v20.20.2')] });
    expect(r.signal).toBeNull(); // not a segfault
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cpa: Content Pipeline needs Node 24 or 26');
    expect(r.stderr).toContain('this is Node v20.20.2');
    expect(r.stderr).toContain('eval "$(bash scripts/node.sh --env)"');
    expect(r.stdout).toBe('');
  });

  // The real thing where the machine has an old Node (this kind of machine's system Node is 20).
  const systemNode = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => existsSync(p));
  const systemVersion = systemNode ? spawnSync(systemNode, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
  const oldNode = systemNode && systemVersion && !satisfies(systemVersion, supportedRange()) ? systemNode : undefined;
  it.skipIf(!oldNode)(`cpa admin under the system Node (${systemVersion || 'none'}) says why instead of a segfault`, () => {
    const r = spawnSync(oldNode!, [cpaBin, 'admin', 'workspace', 'create', '--name', 'Team A'], {
      cwd: projectRoot,
      env: cpaEnv({ DATA_DIR: dataDir }),
      encoding: 'utf8',
    });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`this is Node ${systemVersion}`);
  });
});
