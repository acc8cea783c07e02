// `npm test`: everything CI checks, in order, with a closing line "N passed, N failed".
//   1. lint: redocly (strict), tsc --noEmit, ESLint, generated files up to date, the formatting
//      (Biome); the Redoc page builds
//   2. vitest on SQLite (after installing Debian's Chromium when missing, for the /docs browser test)
//   3. vitest on PostgreSQL (Debian's PostgreSQL 15, started by scripts/pg-start.sh)
//   4. contract fuzzing with schemathesis against the running server: short least-privilege passes
//      (a read token, a draft token: nothing beyond a token's scopes), then the full pass
// Set TEST_SKIP_PG=1 or TEST_SKIP_CONTRACT=1 to leave a stage out locally (CI never does).
//
// `npm run test:smoke` (`--smoke`): what CI runs on the other supported Node, after the whole
// suite on the newest LTS. What can differ between two Node versions is how the code meets the
// runtime: the native SQLite driver, the TLS/socket/fetch stack of the outbound client, child
// processes, the tsx loader, the generators. So: stage 1 without tsc, ESLint and Biome (the same verdict on any
// Node), the unit tests (outbound TLS, proxies, SQLite-backed rate limits) and the CLI's whole
// agent workflow (archive → ingest → draft → publish, a page fetch over TLS) on SQLite, and
// `npm start` itself serving a fresh data directory. Not PostgreSQL (the pg driver, Prisma's WASM engine and Kysely are plain JavaScript
// and WebAssembly, identical on both) nor the contract fuzzing (it checks the API, not the runtime).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';

const results = [];
/** Runs one stage, its output passed through as it comes and kept, for the summary. */
async function stage(name, cmd, args, env = {}) {
  console.log(`\n=== ${name}: ${[cmd, ...args].join(' ')}`);
  const started = Date.now();
  const child = spawn(cmd, args, { stdio: ['inherit', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    process.stdout.write(d);
    output += d;
  });
  child.stderr.on('data', (d) => {
    process.stderr.write(d);
    output += d;
  });
  const status = await new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  const ok = status === 0;
  results.push({ name, ok, seconds: Math.round((Date.now() - started) / 1000) });
  if (!ok) unhandled(name, output);
  return ok;
}

// The failing tests, named again in the summary: CI keeps only the tail of the output.
const failures = [];
/** Vitest fails a run on an error that escaped every test; it is reported only in the output. */
function unhandled(stageName, output) {
  const plain = stripVTControlCharacters(output);
  const at = plain.indexOf('Unhandled Errors ⎯');
  if (at < 0) return;
  let block = null;
  const flush = () => block && failures.push(`${stageName}: ${block.type}: ${block.lines.slice(0, 12).join('\n      ')}`);
  for (const line of plain.slice(at).split('\n').slice(1)) {
    const banner = /^⎯+ (.+?) ⎯+$/.exec(line.trim());
    if (banner || /^⎯+$/.test(line.trim())) {
      flush();
      block = banner ? { type: banner[1], lines: [] } : null;
      if (!banner) break;
    } else if (block && line.trim() && !/^\s*\d*\s*\|/.test(line)) block.lines.push(line.trimEnd()); // not the code frame
  }
  flush();
}

function vitestCounts(file, stageName) {
  if (!existsSync(file)) return null;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  for (const suite of report.testResults ?? []) {
    const where = suite.name.replace(`${process.cwd()}/`, '');
    if (suite.status === 'failed' && (suite.assertionResults ?? []).every((t) => t.status !== 'failed')) {
      failures.push(`${stageName}: ${where}: ${(suite.message ?? '').split('\n')[0].slice(0, 300)}`);
    }
    for (const t of suite.assertionResults ?? []) {
      if (t.status !== 'failed') continue;
      const why = (t.failureMessages ?? [])[0]?.split('\n')[0].slice(0, 300) ?? '';
      failures.push(`${stageName}: ${where} > ${t.fullName}: ${why}`);
    }
  }
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0),
    skipped: report.numPendingTests + report.numTodoTests,
  };
}

mkdirSync('build', { recursive: true });
let passed = 0;
let failed = 0;
let skipped = 0;
const count = (c, ok) => {
  if (c) {
    passed += c.passed;
    failed += c.failed;
    skipped += c.skipped;
  }
  if (!ok && (!c || c.failed === 0)) failed += 1; // a stage that failed without a failing test (crash, lint)
};

const smoke = process.argv.includes('--smoke');
const lints = [
  ['lint: openapi', 'lint:openapi'],
  ['lint: typescript', 'lint:ts'],
  ['lint: eslint', 'lint:eslint'],
  ['lint: generated files', 'check:generated'],
  ['lint: formatting', 'format:check'],
  ['docs: build the Redoc page', 'docs'],
];
for (const [name, script] of lints) {
  // tsc's, ESLint's and Biome's verdicts do not depend on the Node that runs them
  if (smoke && ['lint:ts', 'lint:eslint', 'format:check'].includes(script)) continue;
  const ok = await stage(name, 'npm', ['run', '--silent', script]);
  if (ok) passed += 1;
  else failed += 1;
}

/** One vitest pass, its JSON report read for the counts and the failing tests' names. */
async function vitestStage(name, label, env, files = []) {
  const report = `build/vitest-${label.toLowerCase()}.json`;
  rmSync(report, { force: true }); // a report left by an earlier run must not stand in for this one
  const ok = await stage(name, 'npx', ['vitest', 'run', ...files, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], env);
  count(vitestCounts(report, label), ok);
}

if (smoke) {
  await vitestStage('smoke: unit tests and the CLI workflow on SQLite', 'SQLite', { TEST_DATABASE: 'sqlite' }, ['test/unit', 'test/e2e/cli-flow.test.ts']);
  const ok = await stage('smoke: npm start serves a fresh data directory', 'node', ['scripts/start-smoke.mjs']);
  if (ok) passed += 1;
  else failed += 1;
} else {
  // The browser test of /docs (test/e2e/docs-browser.test.ts) drives Debian's Chromium.
  const browser = spawnSync('bash', ['scripts/chromium-install.sh'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (browser.status !== 0) {
    console.error('could not install Chromium');
    results.push({ name: 'install Chromium', ok: false, seconds: 0 });
    failed += 1;
  }
  await vitestStage('tests on SQLite', 'SQLite', { TEST_DATABASE: 'sqlite' });
}

if (!smoke && process.env.TEST_SKIP_PG !== '1') {
  const pg = spawnSync('bash', ['scripts/pg-start.sh'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (pg.status !== 0) {
    console.error('could not start PostgreSQL');
    results.push({ name: 'start PostgreSQL', ok: false, seconds: 0 });
    failed += 1;
  } else {
    await vitestStage('tests on PostgreSQL', 'PostgreSQL', { TEST_DATABASE: 'postgresql', TEST_PG_ADMIN_URL: pg.stdout.trim() });
  }
}

if (!smoke && process.env.TEST_SKIP_CONTRACT !== '1') {
  const ok = await stage('contract fuzzing (schemathesis)', 'node', ['scripts/contract-test.mjs']);
  if (ok) passed += 1;
  else failed += 1;
}

console.log(`\n=== summary (Node ${process.version}${smoke ? ', smoke pass' : ''})`);
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.seconds}s)`);
for (const f of failures) console.log(`  failed: ${f}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed === 0 && results.every((r) => r.ok) ? 0 : 1);
