#!/usr/bin/env node
// Run first by `npm start`, `npm test` and `npm run bench`: refuses, with a message that says
// what to do, to go on under a Node that package.json's `engines` does not allow. (`npm ci`
// refuses by itself: .npmrc sets engine-strict.) Written to run on old Nodes too: no dependency.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** [major, minor, patch] of "v24.1.0" / "24.1" / "24". */
function parse(v) {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(String(v).trim());
  if (!m) throw new Error(`not a version: ${v}`);
  return [Number(m[1]), Number(m[2] || 0), Number(m[3] || 0)];
}

function cmp(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** Whether `version` is in `range`: `||` of space-separated `>=x`, `>x`, `<x`, `<=x`, `^x`, `x` (the forms engines uses). */
export function satisfies(version, range) {
  const v = parse(version);
  return range.split('||').some((alt) =>
    alt
      .trim()
      .split(/\s+/)
      .every((term) => {
        const m = /^(>=|<=|>|<|\^|=)?\s*(.+)$/.exec(term);
        const want = parse(m[2]);
        const c = cmp(v, want);
        switch (m[1]) {
          case '>=':
            return c >= 0;
          case '>':
            return c > 0;
          case '<=':
            return c <= 0;
          case '<':
            return c < 0;
          case '^':
            return c >= 0 && v[0] === want[0];
          default:
            return c === 0;
        }
      }),
  );
}

export function supportedRange() {
  return JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node;
}

/** The refusal, or null when this Node is supported. */
export function refusal(version = process.version, execPath = process.execPath) {
  const range = supportedRange();
  if (satisfies(version, range)) return null;
  return [
    `Content Pipeline needs Node 24 or 26 (package.json engines: "${range}"); this is Node ${version} (${execPath}).`,
    'Older Nodes are out of security support, and the SQLite driver (better-sqlite3 13, Node-API 10) crashes on Node 20.',
    "Install Node 24 or 26, or use the project's pinned Node (fetched from the npm registry into .tools/):",
    '  eval "$(bash scripts/node.sh --env)"   # this shell only; then run npm ci and your command again',
    'or run one command with it:  bash scripts/node.sh npm ci && bash scripts/node.sh npm start',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const why = refusal();
  if (why) {
    console.error(why);
    process.exit(1);
  }
}
