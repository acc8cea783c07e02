// Runs the copy-paste examples of the README's "Ways in" section against a test server: the ```bash blocks in
// order in one shell (the documented address replaced by the test server's, DATA_DIR pointing at
// its data), the ```ts block with tsx, and each ```json MCP host configuration through the SDK's
// client (stdio: the exact command and arguments; HTTP: the URL and headers).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { cpaEnv, NPX_CPA_SHIM, projectRoot, spawnCpa, type CpaResult } from './support.js';

// Many subprocesses (npx, tsx): generous limits for a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const DOCUMENTED = 'http://127.0.0.1:8787';
const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
// The "Ways in" section, up to the next section of the same level.
const doc = readme.slice(readme.indexOf('\n## Ways in')).split(/\n## (?!Ways in)/)[0]!;
const blocks = (lang: string) => [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

const localize = (text: string) => text.replaceAll(DOCUMENTED, s.url);

/** A README command line, run like `cpa` (same environment, same handling of its input). */
const sh = (command: string[], env: Record<string, string>, input = ''): Promise<CpaResult> => spawnCpa([], { command, env, input }).done;

describe('README: Ways in', () => {
  it('has the examples this test runs', () => {
    expect(blocks('bash').length).toBeGreaterThanOrEqual(4);
    expect(blocks('ts')).toHaveLength(1);
    expect(blocks('json')).toHaveLength(2);
    expect(doc).toContain(DOCUMENTED);
  });

  it('the shell examples (curl, cpa, MCP over curl) run in order and do what they say', async () => {
    // `npx cpa …` runs the bin directly (the MCP stdio configuration below goes through the real npx).
    const script = `set -euo pipefail\n${NPX_CPA_SHIM}\n${blocks('bash').map(localize).join('\n')}`;
    const r = await sh(['bash', '-c', script], { DATA_DIR: s.db.dataDir });
    expect(r.code, `${r.stdout}\n--- stderr:\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('{"status":"ok"}');
    // the pipeline reads a handle of yours: the upload made just before it
    expect(r.stdout).toMatch(/"handle":"my-export"[^\n]*"format":"mastodon"/);
    expect(r.stdout).toMatch(/\{"pipeline_id":"pl_\w+","run_id":"run_\w+","resumed":false\}/);
    expect(r.stdout).toMatch(/HTTP\/1\.1 404[\s\S]*X-Request-Id: req_\w+[\s\S]*"code":"not_found"/);
    // the cpa block imports the sample export (the table of the import), then works on it
    // (piped: tab-separated lines, not the terminal's tables)
    expect(r.stdout).toMatch(/^format\tmastodon$/m);
    expect(r.stdout).toMatch(/^status\tready$/m);
    expect(r.stdout).toMatch(/^state\tpublished$/m);
    // the MCP call at the end answered the pipeline the cpa block created
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { result: { structuredContent: { handle: string } } };
    expect(last.result.structuredContent.handle).toBe('my-export');
  });

  it('the TypeScript example runs with tsx', async () => {
    const file = path.join(projectRoot, `.docs-example-${process.pid}.ts`);
    writeFileSync(file, localize(blocks('ts')[0]!));
    try {
      const r = await sh(['npx', '--no-install', 'tsx', file], { CPA_BASE_URL: s.url, CPA_TOKEN: s.token });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/ingest (succeeded|failed); first posts: \d+/);
      expect(r.stdout).toMatch(/\d+ posts without a draft/);
      expect(r.stdout).toMatch(/not_found \(HTTP 404\); request id req_\w+/);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('both MCP host configurations connect and list the tools', async () => {
    for (const block of blocks('json')) {
      const server = (
        JSON.parse(
          localize(block)
            .replaceAll('/path/to/content-pipeline/data', s.db.dataDir)
            .replaceAll('/path/to/content-pipeline', projectRoot)
            .replace('YOUR_AGENT_TOKEN', s.token),
        ) as {
          mcpServers: Record<string, { command?: string; args?: string[]; env?: Record<string, string>; url?: string; headers?: Record<string, string> }>;
        }
      ).mcpServers['content-pipeline']!;
      const transport = server.command
        ? new StdioClientTransport({ command: server.command, args: server.args, env: cpaEnv(server.env) as Record<string, string>, cwd: '/', stderr: 'pipe' })
        : new StreamableHTTPClientTransport(new URL(server.url!), { requestInit: { headers: server.headers } });
      const client = new Client({ name: 'docs-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('create_pipeline_from_intent');
        const r = (await client.callTool({ name: 'get_run', arguments: { id: 'run_unknown' } })) as { isError?: boolean; content: Array<{ text: string }> };
        expect(JSON.parse(r.content[0]!.text)).toMatchObject({ error: { code: 'not_found' } });
      } finally {
        await client.close();
      }
    }
  });
});
