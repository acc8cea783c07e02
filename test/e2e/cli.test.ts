// The `cpa` binary end to end against a real server: the binary itself, configuration, and the
// exit codes and error reports. Every call is a real subprocess.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { buildProgram } from '../../clients/cli/src/program.js';
import { loadSpec } from '../../server/spec.js';
import { startTestServer } from '../support/server.js';
import { cliServer, cpa, expectExit, json } from './support.js';

// Subprocesses: generous limits for a loaded machine (each call takes well under a second when idle).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const t = cliServer();
const run = t.run;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'cpa-e2e-'));

describe('the binary', () => {
  it('runs through npx after install, with help that documents the exit codes and configuration', async () => {
    const r = await cpa(['--help'], { command: ['npx', '--no-install', 'cpa'] });
    expectExit(r, 0);
    expect(r.stdout).toMatch(/Usage: cpa/);
    expect(r.stdout).toMatch(/Exit codes:[\s\S]*3 +authentication[\s\S]*6 +rate limited[\s\S]*9 +unavailable/);
    expect(r.stdout).toMatch(/CPA_BASE_URL[\s\S]*CPA_TOKEN[\s\S]*agent-token/);
  });

  it('has a command for every operation of the public description (named in its help)', () => {
    const spec = loadSpec('public') as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ops = Object.values(spec.paths).flatMap((item) => Object.values(item).flatMap((op) => (op?.operationId ? [op.operationId] : [])));
    const descriptions: string[] = [];
    const walk = (c: CommandUnknownOpts) => {
      descriptions.push(c.description());
      c.commands.forEach(walk);
    };
    walk(buildProgram());
    const all = descriptions.join('\n');
    expect(ops.length).toBeGreaterThan(15);
    expect(ops.filter((op) => !all.includes(`(${op})`))).toEqual([]);
  });

  it('exits 2 on a usage error', async () => {
    const [unknown, missing, badLimit] = await Promise.all([
      cpa(['no-such-command']),
      run(['pipelines', 'create', '--handle', 'x']),
      run(['posts', 'list', 'pl_x', '--limit', 'ten']),
    ]);
    expectExit(unknown, 2);
    expectExit(missing, 2);
    expect(missing.stderr).toMatch(/--intent/);
    expectExit(badLimit, 2);
  });

  it('prints a bash completion script built from the command tree', async () => {
    const r = await cpa(['completion']);
    expectExit(r, 0);
    const script = path.join(tmp, 'cpa-completion.bash');
    writeFileSync(script, r.stdout);
    const complete = (words: string) =>
      cpa([], { command: ['bash', '-c', `source ${script}; COMP_WORDS=(${words}); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); _cpa; echo "\${COMPREPLY[*]}"`] });
    const [top, sub, option, negated, admin] = await Promise.all([
      complete('cpa pos'),
      complete("cpa posts ''"),
      complete('cpa posts list --has'),
      complete('cpa --json posts list --no-h'),
      complete("cpa admin ''"),
    ]);
    expect(top.stdout.trim()).toBe('posts');
    // the operator commands loaded on demand are part of it too
    expect(admin.stdout.split(/\s+/)).toEqual(expect.arrayContaining(['workspace', 'deliveries']));
    expect(sub.stdout.split(/\s+/)).toEqual(expect.arrayContaining(['list', 'draft']));
    expect(option.stdout.trim()).toBe('--has-artifact');
    expect(negated.stdout.trim()).toBe('--no-has-artifact');
  });
});

describe('configuration', () => {
  it('takes the base URL and token from flags, the environment or a config file, in that order', async () => {
    const file = path.join(tmp, 'config.json');
    writeFileSync(file, JSON.stringify({ base_url: t.s.url, token: t.s.token }));
    const wrong = 'a'.repeat(64);
    const xdg = mkdtempSync(path.join(tmp, 'xdg-'));
    mkdirSync(path.join(xdg, 'cpa'));
    writeFileSync(path.join(xdg, 'cpa', 'config.json'), JSON.stringify({ base_url: t.s.url, token_file: path.join(t.s.db.dataDir, 'agent-token') }));
    // 7 (not found) means authenticated against the right server; 3 means the token was refused
    const [fromEnv, fromFile, envBeatsFile, flagBeatsEnv, defaultLocation, missingFile] = await Promise.all([
      cpa(['pipelines', 'get', 'pl_none'], { env: { CPA_BASE_URL: t.s.url, CPA_TOKEN: t.s.token } }),
      cpa(['pipelines', 'get', 'pl_none', '--config', file]),
      cpa(['pipelines', 'get', 'pl_none', '--config', file], { env: { CPA_TOKEN: wrong } }),
      cpa(['pipelines', 'get', 'pl_none', '--config', file, '--token', t.s.token], { env: { CPA_TOKEN: wrong } }),
      cpa(['pipelines', 'get', 'pl_none'], { env: { XDG_CONFIG_HOME: xdg } }),
      cpa(['health', '--config', path.join(tmp, 'missing.json')]),
    ]);
    expectExit(fromEnv, 7);
    expectExit(fromFile, 7);
    expectExit(envBeatsFile, 3);
    expectExit(flagBeatsEnv, 7);
    expectExit(defaultLocation, 7);
    expectExit(missingFile, 2);
  });

  it("finds a local desktop instance's token file by itself, but never offers it to another host", async () => {
    const [local, shown, remote] = await Promise.all([
      cpa(['pipelines', 'get', 'pl_none', '--base-url', t.s.url, '--data-dir', t.s.db.dataDir]),
      cpa(['config', '--json', '--base-url', t.s.url, '--data-dir', t.s.db.dataDir]),
      cpa(['pipelines', 'get', 'pl_none', '--base-url', 'https://cp.example.com', '--data-dir', t.s.db.dataDir]),
    ]);
    expectExit(local, 7);
    expect(json(shown)).toMatchObject({ base_url: t.s.url, token: expect.stringContaining('agent-token') });
    expect(shown.stdout).not.toContain(t.s.token);
    expectExit(remote, 3);
    expect(remote.stderr).toMatch(/No agent token/);
  });
});

describe('errors', () => {
  it('not found: exit 7, with code, message and request id on stderr (as JSON with --json)', async () => {
    const [r, j] = await Promise.all([run(['pipelines', 'get', 'pl_none']), run(['pipelines', 'get', 'pl_none', '--json'])]);
    expectExit(r, 7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/not_found \(HTTP 404\): No pipeline/);
    expect(r.stderr).toMatch(/Request id: req_[0-9a-f]{32}/);
    expectExit(j, 7);
    expect(JSON.parse(j.stderr)).toMatchObject({ error: { code: 'not_found' }, status: 404, request_id: expect.stringMatching(/^req_/) });
  });

  it('authentication 3, validation 4 (naming the field), unreachable 9', async () => {
    const [refused, limit, key, unreachable] = await Promise.all([
      cpa(['pipelines', 'get', 'pl_none', '--base-url', t.s.url, '--token', 'b'.repeat(64)]),
      // (the lists check --limit themselves, exit 2; the activity's limit is left to the server)
      run(['sessions', 'activity', '--limit', '0']),
      run(['pipelines', 'create', '--handle', 'h', '--intent', 'i', '--idempotency-key', 'short']),
      cpa(['health', '--base-url', 'http://127.0.0.1:9']),
    ]);
    expectExit(refused, 3);
    expect(refused.stderr).toMatch(/unauthorized/);
    expectExit(limit, 4);
    expect(limit.stderr).toMatch(/validation_failed[\s\S]*limit/);
    expectExit(key, 4);
    expect(key.stderr).toMatch(/idempotency_key/);
    expectExit(unreachable, 9);
    expect(unreachable.stderr).toMatch(/Cannot reach the server at http:\/\/127\.0\.0\.1:9/);
  });

  it('state: publishing a draft is exit 8 with the suggested action', async () => {
    const { artifactId } = await t.artifact('draft');
    const r = await run(['artifacts', 'publish', artifactId]);
    expectExit(r, 8);
    expect(r.stderr).toMatch(/forbidden \(HTTP 403\)/);
    expect(r.stderr).toMatch(/Suggested action: \S+/);
  });

  it('credential: publishing where the platform account is missing is exit 5, suggesting connect_account', async () => {
    const { artifactId } = await t.artifact('ready', { handle: '@ada@mastodon.example' });
    const r = await run(['artifacts', 'publish', artifactId]);
    expectExit(r, 5);
    expect(r.stderr).toMatch(/credential_missing \(HTTP 424\)[\s\S]*Suggested action: connect_account → POST \/api\/agent\/v1\/accounts\/connect/);
  });

  it('rate limited: exit 6 once the retries are spent, with Retry-After', async () => {
    const limited = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1' } });
    try {
      const args = ['--base-url', limited.url, '--token', limited.token, '--retries', '0', 'runs', 'get', 'run_none'];
      expectExit(await cpa(args), 7);
      const r = await cpa(args);
      expectExit(r, 6);
      expect(r.stderr).toMatch(/rate_limited \(HTTP 429\)[\s\S]*Retry after: \d+ s/);
    } finally {
      await limited.stop();
    }
  });
});
