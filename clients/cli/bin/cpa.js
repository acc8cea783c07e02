#!/usr/bin/env node
// The `cpa` launcher (the package's `bin`). It runs the compiled CLI (clients/cli/dist/, built by
// `npm run build`, which `npm ci` runs): about 0.1 s of start-up instead of 1-3 s of compiling the
// TypeScript at every call. When that build is missing or older than a source file, or with
// CPA_FROM_SOURCE=1 (the dev path), it runs the TypeScript through tsx's loader instead, in this
// same process either way (stdin, stdout and signals stay its own, which `cpa mcp` over stdio
// relies on). CPA_REQUIRE_COMPILED=1 (set by the tests) makes a missing or stale build an error.
import { refusal } from '../../../scripts/preflight.mjs';
import { compiledEntry } from './compiled.js';

// On a Node that package.json's engines does not allow (Node 20 in another terminal), say so and
// what to do, as `npm start` does, instead of crashing in the SQLite driver (a segfault).
const unsupported = refusal();
if (unsupported) {
  process.stderr.write(`cpa: ${unsupported}\n`);
  process.exit(1);
}

const compiled = process.env.CPA_FROM_SOURCE === '1' ? { url: null, why: 'CPA_FROM_SOURCE=1' } : compiledEntry();
if (compiled.url) {
  await import(compiled.url);
} else if (process.env.CPA_REQUIRE_COMPILED === '1') {
  process.stderr.write(`cpa: CPA_REQUIRE_COMPILED=1, but ${compiled.why}\n`);
  process.exit(1);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
