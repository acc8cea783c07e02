// `npm test`: everything CI checks, in order, with a closing line "N passed, N failed".
//   1. lint: redocly (strict), tsc --noEmit, generated files up to date; the Redoc page builds
//   2. vitest on SQLite
//   3. vitest on PostgreSQL (Debian's PostgreSQL 15, started by scripts/pg-start.sh)
//   4. contract fuzzing with schemathesis against the running server
// Set TEST_SKIP_PG=1 or TEST_SKIP_CONTRACT=1 to leave a stage out locally (CI never does).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';

const results = [];
function stage(name, cmd, args, env = {}) {
  console.log(`\n=== ${name}: ${[cmd, ...args].join(' ')}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  const ok = r.status === 0;
  results.push({ name, ok, seconds: Math.round((Date.now() - started) / 1000) });
  return ok;
}

// The failing tests, named again in the summary: CI keeps only the tail of the output.
const failures = [];
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
  return { passed: report.numPassedTests, failed: report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0), skipped: report.numPendingTests + report.numTodoTests };
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

for (const [name, script] of [['lint: openapi', 'lint:openapi'], ['lint: typescript', 'lint:ts'], ['lint: generated files', 'check:generated'], ['docs: build the Redoc page', 'docs']]) {
  const ok = stage(name, 'npm', ['run', '--silent', script]);
  if (ok) passed += 1;
  else failed += 1;
}

const sqliteReport = 'build/vitest-sqlite.json';
const okSqlite = stage('tests on SQLite', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${sqliteReport}`], { TEST_DATABASE: 'sqlite' });
count(vitestCounts(sqliteReport, 'SQLite'), okSqlite);

if (process.env.TEST_SKIP_PG !== '1') {
  const pg = spawnSync('bash', ['scripts/pg-start.sh'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (pg.status !== 0) {
    console.error('could not start PostgreSQL');
    results.push({ name: 'start PostgreSQL', ok: false, seconds: 0 });
    failed += 1;
  } else {
    const pgReport = 'build/vitest-postgresql.json';
    const ok = stage('tests on PostgreSQL', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${pgReport}`], {
      TEST_DATABASE: 'postgresql',
      TEST_PG_ADMIN_URL: pg.stdout.trim(),
    });
    count(vitestCounts(pgReport, 'PostgreSQL'), ok);
  }
}

if (process.env.TEST_SKIP_CONTRACT !== '1') {
  const ok = stage('contract fuzzing (schemathesis)', 'node', ['scripts/contract-test.mjs']);
  if (ok) passed += 1;
  else failed += 1;
}

console.log('\n=== summary');
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.seconds}s)`);
for (const f of failures) console.log(`  failed: ${f}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed === 0 && results.every((r) => r.ok) ? 0 : 1);
