import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { refusal, satisfies, supportedRange } from '../../scripts/preflight.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const preflight = path.join(root, 'scripts', 'preflight.mjs');
/** Makes the script see another process.version (the real one is read-only but configurable). */
const pretend = (v: string) => `--import=data:text/javascript,Object.defineProperty(process,"version",{value:"${v}"})`;

describe('the supported Node versions (package.json engines)', () => {
  it('are the LTS lines 24 (from its first LTS release) and 26 on', () => {
    const range = supportedRange() as string;
    for (const v of ['v24.11.0', 'v24.21.0', 'v26.0.0', 'v26.10.0', 'v28.1.0']) expect(satisfies(v, range), v).toBe(true);
    for (const v of ['v18.20.8', 'v20.19.0', 'v20.20.2', 'v22.23.3', 'v24.10.0', 'v25.9.0']) expect(satisfies(v, range), v).toBe(false);
  });

  it('parse the range forms engines uses', () => {
    expect(satisfies('v22.14.0', '^22.14 || >=24')).toBe(true);
    expect(satisfies('v22.13.9', '^22.14 || >=24')).toBe(false);
    expect(satisfies('v23.0.0', '>=22 <23')).toBe(false);
    expect(satisfies('v22.99.0', '>=22 <23')).toBe(true);
  });

  it('include the Node that runs these tests (CI runs them on 24 and on 26)', () => {
    expect(refusal()).toBeNull();
  });
});

describe('scripts/preflight.mjs (first step of npm start, npm test, npm run bench)', () => {
  it('says nothing and lets the command go on under a supported Node', () => {
    const r = spawnSync(process.execPath, [preflight], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).toBe('');
  });

  it('refuses an unsupported Node with a message that says what to do', () => {
    const r = spawnSync(process.execPath, [pretend('v20.20.2'), preflight], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Content Pipeline needs Node 24 or 26');
    expect(r.stderr).toContain('this is Node v20.20.2');
    expect(r.stderr).toContain('eval "$(bash scripts/node.sh --env)"');
  });

  // The real thing where the machine has an old Node (this kind of machine's system Node is 20).
  const systemNode = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => existsSync(p));
  const systemVersion = systemNode ? spawnSync(systemNode, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
  const oldNode = systemNode && systemVersion && !satisfies(systemVersion, supportedRange()) ? systemNode : undefined;
  it.skipIf(!oldNode)(`npm start refuses to start under the system Node (${systemVersion || 'none'})`, () => {
    const env = { ...process.env, PATH: `${path.dirname(oldNode!)}:${process.env.PATH}`, PORT: '1', npm_config_nodedir: '' };
    const r = spawnSync('npm', ['start'], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`this is Node ${systemVersion}`);
    expect(r.stdout + r.stderr).not.toContain('listening');
  });
});
