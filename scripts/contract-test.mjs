// Contract fuzzing: starts the real server (SQLite in a temporary directory), seeds the resources
// the contract's examples name (scripts/contract/seed.ts), then runs schemathesis (pinned, in
// .venv-contract) with every check and phase against it, with a fixed seed. Any finding fails.
// Before it, on a server of their own, the least-privilege passes: short runs with a token
// holding only `read`, then only `draft` (made through POST /tokens), where every operation beyond
// the token's scopes must answer 403 request_scope (the check `answers_within_token_scopes` in
// scripts/contract/hooks.py) and the others pass the usual checks.
// Usage: node scripts/contract-test.mjs [--max-examples N] [--least-privilege-only]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const venv = path.join(root, '.venv-contract');
const st = path.join(venv, 'bin', 'st');
const requirements = path.join(root, 'scripts', 'contract', 'requirements.txt');
const pinned = readFileSync(requirements, 'utf8').trim();

function ensureSchemathesis() {
  const have = existsSync(st) ? spawnSync(path.join(venv, 'bin', 'pip'), ['freeze'], { encoding: 'utf8' }).stdout : '';
  if (have.includes(pinned)) return;
  console.error(`[contract] installing ${pinned} into .venv-contract`);
  const python = process.env.PYTHON ?? 'python3';
  if (!existsSync(venv)) spawnSync(python, ['-m', 'venv', venv], { stdio: 'inherit' });
  const r = spawnSync(path.join(venv, 'bin', 'pip'), ['install', '--quiet', '-r', requirements], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('installing schemathesis failed');
}

const freePort = () =>
  new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });

async function waitForHealth(url, child) {
  for (let i = 0; i < 120; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const r = await fetch(`${url}/api/health`);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('server did not become healthy');
}

const args = process.argv.slice(2);
// The budgets live in scripts/contract/schemathesis.toml; this overrides them for every phase.
const maxExamples = args.includes('--max-examples') ? args[args.indexOf('--max-examples') + 1] : process.env.CONTRACT_MAX_EXAMPLES;
const leastPrivilegeOnly = args.includes('--least-privilege-only');

/**
 * The least-privilege passes: each token's scopes, and what the pass generates. Short (well under
 * two minutes together on a 2-core machine): the examples and a few fuzzed cases of every
 * operation, no coverage or stateful phase (the full pass has them, with every scope).
 */
const LEAST_PRIVILEGE = [
  { scopes: ['read'], maxExamples: '3' },
  { scopes: ['draft'], maxExamples: '2' },
];

/** A named token with only `scopes`, made through the API with the full-power token. */
async function namedToken(url, token, scopes) {
  const post = () =>
    fetch(`${url}/api/agent/v1/tokens`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `contract ${scopes.join('+')}`, scopes }),
    });
  // Once more on a connection the server closed while a pass ran (an idle keep-alive socket).
  const res = await post().catch(post);
  if (res.status !== 201) throw new Error(`creating the ${scopes.join('+')} token answered ${res.status}: ${await res.text()}`);
  return (await res.json()).secret;
}

ensureSchemathesis();
const secrets = { WEBHOOK_SIGNING_SECRET: 'contract-test-backend-secret', SERVICE_SCRAPER_SIGNING_SECRET: 'contract-test-scraper-secret' };
const skip = Object.keys(JSON.parse(readFileSync(path.join(root, 'scripts', 'contract', 'skip.json'), 'utf8')).skip);
const hooks = path.join(root, 'scripts', 'contract', 'hooks.py');

/**
 * Runs `work(url, token)` against a fresh server (SQLite in a temporary directory), seeded with
 * the resources the contract's examples name, and stops it after; answers what `work` answers.
 * Each pass that changes data gets its own: the least-privilege passes must not delete what the
 * full pass's examples expect (a draft token may delete a seeded schema), and the full pass's
 * stateful phase revokes tokens (listTokens links to revokeToken), the first-launch one included.
 */
async function withServer(work) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cp-contract-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'server', 'main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      ...secrets,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.CONTRACT_LOG_LEVEL ?? 'error',
      RATE_LIMIT_PER_MINUTE: '1000000',
      STREAM_MAX_SECONDS: '2',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    await waitForHealth(url, server);
    const token = readFileSync(path.join(dataDir, 'agent-token'), 'utf8').trim();
    // The resources the contract's examples name, so that the examples reach the success paths.
    const seeded = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'contract', 'seed.ts'), dataDir], {
      cwd: root,
      stdio: 'inherit',
    });
    if (seeded.status !== 0) throw new Error('seeding the contract server failed');
    return await work(url, token);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const common = (url, bearer) => [
  'run',
  path.join(root, 'generated', 'openapi.json'),
  '--url',
  url,
  '--header',
  `Authorization: Bearer ${bearer}`,
  '--seed',
  '20261122',
  // One worker: CPython 3.11.7 (the machines' python3) keeps the AST constructor's recursion
  // depth in shared state, so two threads parsing at once (hypothesis describes filter lambdas
  // with ast.parse) can fail with "SystemError: AST constructor recursion depth mismatch"
  // (python/cpython#106905). It failed a CI run that way; one worker makes the run deterministic.
  '--workers',
  '1',
  '--request-timeout',
  '10',
  '--suppress-health-check',
  'too_slow',
  ...skip.flatMap((op) => ['--exclude-operation-id', op]),
];

/** One schemathesis run against `url` with `bearer`: its exit status. */
const schemathesis = (url, bearer, passArgs, env = {}) =>
  spawnSync(st, ['--config-file', path.join(root, 'scripts', 'contract', 'schemathesis.toml'), ...common(url, bearer), ...passArgs], {
    stdio: 'inherit',
    env: {
      ...process.env,
      ...secrets,
      ...env,
      CONTRACT_BASE_URL: url,
      // The token the pass runs with, which the hooks keep from being revoked (hooks.py keep_own_token).
      CONTRACT_TOKEN: bearer,
      ...(existsSync(hooks) ? { SCHEMATHESIS_HOOKS: 'hooks', PYTHONPATH: path.dirname(hooks) } : {}),
    },
  }).status ?? 1;

let code = await withServer(async (url, token) => {
  let failed = 0;
  for (const pass of LEAST_PRIVILEGE) {
    const started = Date.now();
    const scopes = pass.scopes.join(',');
    console.error(`[contract] least-privilege pass: a token with only ${scopes}`);
    // Every check but positive_data_acceptance: schema-valid data for an operation beyond the
    // token's scopes is refused (403), which answers_within_token_scopes checks instead; the full
    // pass checks acceptance with every scope.
    const status = schemathesis(
      url,
      await namedToken(url, token, pass.scopes),
      ['--checks', 'all', '--exclude-checks', 'positive_data_acceptance', '--phases', 'examples,fuzzing', '--max-examples', pass.maxExamples],
      { CONTRACT_TOKEN_SCOPES: scopes },
    );
    console.error(`[contract] least-privilege pass (${scopes}): ${status === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s`);
    if (status !== 0) failed = status;
  }
  return failed;
});
if (!leastPrivilegeOnly) {
  const full = await withServer(async (url, token) => {
    console.error(`[contract] schemathesis against ${url} (skipping ${skip.length ? skip.join(', ') : 'nothing'})`);
    // Every check, positive_data_acceptance included (schema-valid data must be accepted: the
    // contract is as precise as the server; the exceptions, each with its reason, are in
    // schemathesis.toml) besides negative_data_rejection, conformance and server errors.
    return schemathesis(url, token, [
      '--checks',
      'all',
      '--phases',
      'examples,coverage,fuzzing,stateful',
      ...(maxExamples ? ['--max-examples', maxExamples] : []),
    ]);
  });
  if (full !== 0) code = full;
}
console.log(code === 0 ? 'contract: 1 passed, 0 failed' : 'contract: 0 passed, 1 failed');
process.exit(code);
