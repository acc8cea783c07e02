// The operator side of `cpa`: `cpa token` (the desktop token file), `cpa admin workspace create`
// (straight on the configured database, SQLite or PostgreSQL, as the server is configured), and
// `cpa mcp` (the MCP server over stdio) driven by the SDK's own client.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { cpa, cpaBin, cpaEnv, expectExit, json, projectRoot } from './support.js';

// Subprocesses and database migrations: generous limits for a loaded machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

/** The environment the server of `t` was configured with, for commands that open its database. */
const dbEnv = (t: TestServer): Record<string, string> => ({ DATA_DIR: t.db.dataDir, ...(t.db.databaseUrl ? { DATABASE_URL: t.db.databaseUrl } : {}) });

describe('cpa token', () => {
  it('prints the desktop token from --data-dir or DATA_DIR, and exits 3 when there is none', async () => {
    const [flag, env, missing] = await Promise.all([
      cpa(['token', '--data-dir', s.db.dataDir]),
      cpa(['token'], { env: { DATA_DIR: s.db.dataDir } }),
      cpa(['token', '--data-dir', '/nonexistent']),
    ]);
    expectExit(flag, 0);
    expect(flag.stdout).toBe(`${s.token}\n`);
    expect(env.stdout).toBe(`${s.token}\n`);
    expectExit(missing, 3);
    expect(missing.stderr).toMatch(/No agent token at \/nonexistent\/agent-token/);
  });
});

describe('cpa admin workspace create', () => {
  it('creates a workspace on the configured database and prints its token once; the token works, in its own workspace', async () => {
    const r = await cpa(['admin', 'workspace', 'create', '--name', 'Team A'], { env: dbEnv(s) });
    expectExit(r, 0);
    const token = r.stdout.trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(r.stderr).toMatch(/Created workspace ws_\w+ \("Team A"\)/);
    expect(r.stderr).not.toContain(token);

    const created = json<{ pipeline_id: string }>(
      await cpa(['--base-url', s.url, '--token', token, 'pipelines', 'create', '--handle', 'team-archive', '--intent', 'team', '--json']),
    );
    // the desktop workspace does not see the team's pipeline
    expectExit(await cpa(['--base-url', s.url, '--token', s.token, 'pipelines', 'get', created.pipeline_id]), 7);
    expectExit(await cpa(['--base-url', s.url, '--token', token, 'pipelines', 'get', created.pipeline_id]), 0);
    // The record names the operator for the workspace, then the first-launch token for the pipeline.
    const record = json<{ data: Array<{ action: string; actor: { kind: string; id: string | null; name: string } }> }>(
      await cpa(['--base-url', s.url, '--token', token, 'audit', 'list', '--json']),
    );
    expect(record.data.map((e) => [e.action, e.actor.kind, e.actor.name])).toEqual([
      ['pipeline.created', 'agent', 'first-launch token'],
      ['workspace.created', 'operator', expect.stringMatching(/^operator/)],
    ]);
  });

  it('on a team host, the first workspace ends the "no token yet" state', async () => {
    const team = await startTestServer({ env: { INSTANCE_MODE: 'team' } });
    try {
      const before = await cpa(['--base-url', team.url, '--token', 'd'.repeat(64), 'runs', 'get', 'run_x']);
      expectExit(before, 3);
      expect(before.stderr).toMatch(/admin workspace create/);
      const r = await cpa(['admin', 'workspace', 'create', '--name', 'First', '--json'], { env: dbEnv(team) });
      expectExit(r, 0);
      const out = json<{ workspace_id: string; name: string; token: string }>(r);
      expect(out).toMatchObject({ workspace_id: expect.stringMatching(/^ws_/), name: 'First', token: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expectExit(await cpa(['--base-url', team.url, '--token', out.token, 'runs', 'get', 'run_x']), 7);
    } finally {
      await team.stop();
    }
  });

  it('refuses a blank name (exit 2) and a bad configuration (exit 2)', async () => {
    const [blank, badUrl] = await Promise.all([
      cpa(['admin', 'workspace', 'create', '--name', '  '], { env: dbEnv(s) }),
      cpa(['admin', 'workspace', 'create', '--name', 'X'], { env: { DATABASE_URL: 'mysql://nope' } }),
    ]);
    expectExit(blank, 2);
    expectExit(badUrl, 2);
    expect(badUrl.stderr).toMatch(/DATABASE_URL must start with postgresql/);
  });
});

describe('cpa mcp (stdio)', () => {
  async function stdioClient(env: Record<string, string>) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cpaBin, 'mcp'],
      env: cpaEnv(env) as Record<string, string>,
      cwd: projectRoot,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  it('serves the same tools as /api/mcp, and calls the REST API with the configured token', async () => {
    const client = await stdioClient({ CPA_BASE_URL: s.url, CPA_TOKEN: s.token });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['create_pipeline_from_intent', 'get_pipeline', 'list_pipeline_posts', 'publish_artifact', 'get_run']),
      );
      const created = (await client.callTool({
        name: 'create_pipeline_from_intent',
        arguments: { handle: 'mcp-stdio-archive', intent: 'stdio' },
      })) as unknown as { structuredContent: { pipeline_id: string } };
      const got = (await client.callTool({ name: 'get_pipeline', arguments: { id: created.structuredContent.pipeline_id } })) as unknown as {
        structuredContent: { handle: string };
      };
      expect(got.structuredContent.handle).toBe('mcp-stdio-archive');
      const missing = (await client.callTool({ name: 'get_artifact', arguments: { id: 'art_none' } })) as {
        isError: boolean;
        content: Array<{ text: string }>;
      };
      expect(missing.isError).toBe(true);
      expect(JSON.parse(missing.content[0]!.text)).toMatchObject({ error: { code: 'not_found' }, status: 404, request_id: expect.stringMatching(/^req_/) });
      // A GET tool with an argument it does not have: a validation error naming it, not a body on a GET.
      const bogus = (await client.callTool({ name: 'get_pipeline', arguments: { id: created.structuredContent.pipeline_id, bogus: 1 } })) as {
        isError: boolean;
        content: Array<{ text: string }>;
      };
      expect(bogus.isError).toBe(true);
      expect(JSON.parse(bogus.content[0]!.text).error).toEqual({
        code: 'validation_failed',
        message: 'bogus is not an argument of get_pipeline (it takes id)',
      });
    } finally {
      await client.close();
    }
  });

  it('lists only the tools its token may call (GET /tokens/current), the path uploads included, and refuses the others without a request', async () => {
    const made = await fetch(`${s.url}/api/agent/v1/tokens`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'stdio reader', scopes: ['read'] }),
    });
    expect(made.status).toBe(201);
    const client = await stdioClient({ CPA_BASE_URL: s.url, CPA_TOKEN: ((await made.json()) as { secret: string }).secret });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['get_pipeline', 'list_artifacts', 'get_current_token']));
      for (const hidden of ['publish_artifact', 'create_pipeline_from_intent', 'import_archive_from_path', 'upload_media_from_path', 'create_token']) {
        expect(names).not.toContain(hidden);
      }
      const refused = (await client.callTool({ name: 'import_archive_from_path', arguments: { path: '/nonexistent', handle: 'x' } })) as {
        isError: boolean;
        content: Array<{ text: string }>;
      };
      expect(refused.isError).toBe(true);
      expect(JSON.parse(refused.content[0]!.text).error).toMatchObject({ code: 'forbidden', suggested_action: 'request_scope' });
    } finally {
      await client.close();
    }
  });

  it('imports an export from a path on its own machine (import_archive_from_path), which /api/mcp cannot offer', async () => {
    const client = await stdioClient({ CPA_BASE_URL: s.url, CPA_TOKEN: s.token });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('import_archive_from_path');
      expect(tools.map((t) => t.name)).not.toContain('create_import');
      const outbox = path.join(projectRoot, 'test/fixtures/archives/mastodon-outbox.json');
      const r = (await client.callTool({ name: 'import_archive_from_path', arguments: { path: outbox, handle: 'mcp-path-import' } })) as {
        isError?: boolean;
        content: Array<{ text: string }>;
      };
      expect(r.isError).toBeFalsy();
      expect(JSON.parse(r.content[0]!.text)).toMatchObject({ handle: 'mcp-path-import', format: 'mastodon', container: 'file', summary: { posts: 3 } });
      const bad = (await client.callTool({
        name: 'import_archive_from_path',
        arguments: { path: path.join(projectRoot, 'README.md'), handle: 'mcp-path-import' },
      })) as { isError: boolean; content: Array<{ text: string }> };
      expect(bad.isError).toBe(true);
      expect(JSON.parse(bad.content[0]!.text)).toMatchObject({ error: { code: 'validation_failed' }, status: 422 });
    } finally {
      await client.close();
    }
  });

  it('does not start without a token', async () => {
    const r = await cpa(['mcp', '--base-url', 'https://cp.example.com']);
    expectExit(r, 3);
    expect(r.stdout).toBe(''); // nothing but MCP messages may go to stdout
  });
});
