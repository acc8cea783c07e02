// npm 11's install-script policy: every dependency that has an install script is decided in
// package.json's `allowScripts` (so `npm ci` prints no "not yet covered by allowScripts" warning,
// and npm 12, which blocks undecided ones, installs the same), as npm itself reports it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };

describe('allowScripts', () => {
  it('decides every installed dependency with an install script (npm install-scripts ls finds none undecided)', () => {
    const out = execFileSync('npm', ['install-scripts', 'ls', '--json'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, npm_config_loglevel: 'error' },
    });
    expect(JSON.parse(out)).toEqual({ allowScripts: [] });
  });

  it('allows the scripts the project relies on, and names the one it denies', () => {
    expect(pkg.allowScripts).toEqual({ '@prisma/engines': true, 'better-sqlite3': true, esbuild: true, prisma: true, 'core-js': false });
  });
});
