// The typed client as a package (clients/typescript): `npm pack` builds it (prepack →
// scripts/build-client.mjs) into a tarball that a project outside this repository installs and
// type-checks with the settings `tsc --init` gives, offline (its dependencies are packed from
// this repository's node_modules). Its version is the contract's.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { contractVersion } from '../../scripts/build-client.mjs';
import { projectRoot } from './support.js';

vi.setConfig({ testTimeout: 180_000 });

const dir = mkdtempSync(path.join(os.tmpdir(), 'cpa-client-consumer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const npm = (args: string[], cwd = dir) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
const tsc = path.join(projectRoot, 'node_modules/typescript/bin/tsc');

const EXAMPLE = `import { createApiClient, NotFoundError, unwrap, waitForRun, type Schemas } from '@content-pipeline/client';

const client = createApiClient({ baseUrl: 'http://127.0.0.1:8787', token: 'a'.repeat(64) });

export async function main(): Promise<string> {
  const { pipeline_id, run_id } = await unwrap(
    client.POST('/api/agent/v1/pipelines/from-intent', { body: { handle: 'my-export', intent: 'Weekly posts about our releases' } }),
  );
  const run = await waitForRun(client, run_id, { timeoutMs: 60_000 });
  const first = await client.paginate('/api/agent/v1/pipelines/{id}/posts', { params: { path: { id: pipeline_id } } }).toArray({ limit: 5 });
  const pipeline: Schemas['Pipeline'] = await unwrap(client.GET('/api/agent/v1/pipelines/{id}', { params: { path: { id: pipeline_id } } }));
  try {
    await unwrap(client.GET('/api/agent/v1/artifacts/{id}', { params: { path: { id: 'art_unknown' } } }));
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
  // The types are the contract's, not \`any\`: an unknown path and a wrong field do not compile.
  // @ts-expect-error no such path
  void client.GET('/api/agent/v1/no-such-path');
  // @ts-expect-error handle is a string
  void client.POST('/api/agent/v1/pipelines/from-intent', { body: { handle: 42, intent: 'x' } });
  return \`\${run.status} \${first.length} \${pipeline.id}\`;
}
`;

describe('the typed client package', () => {
  it('is versioned with the contract', () => {
    const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'clients/typescript/package.json'), 'utf8')) as {
      version: string;
      exports: Record<string, unknown>;
    };
    expect(pkg.version).toBe(contractVersion());
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
  });

  it('packs, installs in a project outside the repository, and type-checks there with tsc --init settings', () => {
    npm(['pack', path.join(projectRoot, 'clients/typescript'), '--pack-destination', dir], projectRoot);
    for (const dep of ['openapi-fetch', 'openapi-typescript-helpers', 'eventsource-parser'])
      npm(['pack', path.join(projectRoot, 'node_modules', dep), '--pack-destination', dir], projectRoot);
    const tarballs = readdirSync(dir).filter((f) => f.endsWith('.tgz'));
    expect(tarballs).toContain(`content-pipeline-client-${contractVersion()}.tgz`);
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    npm(['install', '--offline', ...tarballs.map((t) => `./${t}`)]);
    // Only the built package is installed: no source, no path back into this repository.
    const installed = path.join(dir, 'node_modules/@content-pipeline/client');
    expect(readdirSync(installed).sort()).toEqual(['dist', 'package.json']);
    expect(readFileSync(path.join(installed, 'dist/index.d.ts'), 'utf8')).not.toContain('../');
    execFileSync(process.execPath, [tsc, '--init'], { cwd: dir });
    writeFileSync(path.join(dir, 'example.ts'), EXAMPLE);
    const checked = (() => {
      try {
        return execFileSync(process.execPath, [tsc, '-p', dir], { cwd: dir, encoding: 'utf8' });
      } catch (err) {
        return `tsc failed:\n${(err as { stdout?: string }).stdout ?? ''}`;
      }
    })();
    expect(checked).toBe('');
    // And it runs: the compiled example imports the package's JavaScript.
    const loaded = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('@content-pipeline/client'); console.log(typeof m.createApiClient, typeof m.unwrap, typeof (await import('./example.js')).main)",
      ],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    expect(loaded.trim()).toBe('function function function');
  });
});
