#!/usr/bin/env node
// Run by `npm ci` / `npm install` (postinstall): makes node_modules/.bin/cpa, a link to the `cpa`
// launcher (clients/cli/bin/cpa.js), which npm does not make for a project's own `bin`. With it,
// `npx cpa` finds the command without asking npm to resolve a package, and
// `export PATH="$PWD/node_modules/.bin:$PATH"` makes `cpa` itself a command (about 0.1 s a call).
import { chmodSync, lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'node_modules', '.bin');
const link = path.join(bin, 'cpa');
const target = path.relative(bin, path.join(root, 'clients/cli/bin/cpa.js'));

mkdirSync(bin, { recursive: true });
let current = null;
try {
  current = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : '';
} catch {
  // no link yet
}
if (current !== target) {
  rmSync(link, { force: true });
  symlinkSync(target, link);
}
chmodSync(path.join(root, 'clients/cli/bin/cpa.js'), 0o755);
