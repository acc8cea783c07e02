// `cpa` runs compiled JavaScript (clients/cli/dist, built by scripts/build.mjs at install), not
// TypeScript compiled at every call; the launcher never runs a build older than its sources.
// (The figures, `cpa --help` before and after, are in BENCHMARKS.md: no timing is asserted here.)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledEntry } from '../../clients/cli/bin/compiled.js';
import { cpaBin, cpaEnv, projectRoot } from '../e2e/support.js';

const entryOf = compiledEntry;

describe('the compiled cpa', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'cpa-compiled-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  /** A project with one source file and a build made of it, `age` seconds after the source. */
  function fakeProject(name: string) {
    const root = path.join(tmp, name);
    mkdirSync(path.join(root, 'clients/cli/src'), { recursive: true });
    mkdirSync(path.join(root, 'clients/cli/dist'), { recursive: true });
    writeFileSync(path.join(root, 'clients/cli/src/main.ts'), 'export {};\n');
    writeFileSync(path.join(root, 'clients/cli/dist/main.js'), 'export {};\n');
    writeFileSync(path.join(root, 'clients/cli/dist/manifest.json'), JSON.stringify({ entry: 'main.js', inputs: ['clients/cli/src/main.ts'] }));
    const setTime = (rel: string, s: number) => utimesSync(path.join(root, rel), s, s);
    setTime('clients/cli/src/main.ts', 1_000_000);
    setTime('clients/cli/dist/main.js', 1_000_010);
    return { root, setTime };
  }

  it('is used when it is newer than every source it was made of', () => {
    const { root } = fakeProject('fresh');
    expect(entryOf(root)).toEqual({ url: `file://${root}/clients/cli/dist/main.js`, why: null });
  });

  it('is refused when a source changed after it was built, or went away, or the build is missing', () => {
    const stale = fakeProject('stale');
    stale.setTime('clients/cli/src/main.ts', 1_000_020);
    expect(entryOf(stale.root)).toMatchObject({ url: null, why: expect.stringContaining('older than clients/cli/src/main.ts') });

    const gone = fakeProject('gone');
    rmSync(path.join(gone.root, 'clients/cli/src/main.ts'));
    expect(entryOf(gone.root).url).toBeNull();

    const unbuilt = fakeProject('unbuilt');
    rmSync(path.join(unbuilt.root, 'clients/cli/dist'), { recursive: true });
    expect(entryOf(unbuilt.root)).toMatchObject({ url: null, why: expect.stringContaining('npm run build') });
  });

  it('is built and fresh for the tests (the global setup builds it when stale)', () => {
    const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'clients/cli/dist/manifest.json'), 'utf8')) as { inputs: string[] };
    expect(manifest.inputs).toContain('clients/cli/src/main.ts');
    // the operator console, reached through the package's #cpa/operator-commands import, is bundled (and watched for staleness) too
    expect(manifest.inputs).toContain('server/operator/index.ts');
    expect(entryOf()).toMatchObject({ why: null });
  });

  it('is what the launcher runs; with CPA_REQUIRE_COMPILED=1 a missing build is an error, not a slow fallback', () => {
    const r = spawnSync(process.execPath, [cpaBin, '--help'], { env: cpaEnv(), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage: cpa');
    // The launcher's own check, against a project with no build: it refuses rather than compile.
    const copy = path.join(tmp, 'launcher');
    mkdirSync(path.join(copy, 'clients/cli/bin'), { recursive: true });
    mkdirSync(path.join(copy, 'scripts'), { recursive: true });
    // The launcher, and what it reads first: the Node check (scripts/preflight.mjs, package.json's engines).
    for (const f of ['clients/cli/bin/cpa.js', 'clients/cli/bin/compiled.js', 'scripts/preflight.mjs', 'package.json'])
      writeFileSync(path.join(copy, f), readFileSync(path.join(projectRoot, f)));
    const refused = spawnSync(process.execPath, [path.join(copy, 'clients/cli/bin/cpa.js'), '--help'], { env: cpaEnv(), encoding: 'utf8' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('CPA_REQUIRE_COMPILED=1, but clients/cli/dist is missing');
  });

  it('loads nothing from node_modules at start: the few packages every call needs are bundled in, the heavy ones load only where used', () => {
    // The modules main.js imports statically, transitively: what every `cpa` call loads.
    const dist = path.join(projectRoot, 'clients/cli/dist');
    const seen = new Set<string>();
    const packages = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(path.join(dist, file), 'utf8');
      for (const m of code.matchAll(/(?:^|\n)(?:import|export)\s(?:[^;"]*?\sfrom\s*)?"([^"]+)"/g)) {
        if (m[1]!.startsWith('./')) walk(m[1]!.slice(2));
        else packages.add(m[1]!);
      }
    };
    walk('main.js');
    // The few packages every call needs are bundled in (scripts/build.mjs, BUNDLED_PACKAGES); the
    // rest, Prisma, pg, the MCP SDK, express, tsx, are imported only by the chunks of the commands
    // that use them.
    expect(
      [...packages].filter((p) => !p.startsWith('node:')),
      'packages loaded by every cpa call',
    ).toEqual([]);
    expect(readFileSync(path.join(dist, 'main.js'), 'utf8')).toMatch(/CommanderError\d* = class/); // commander, bundled
  });
});
