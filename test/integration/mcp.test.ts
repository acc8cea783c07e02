// The MCP server at /api/mcp, through the SDK's own client against a real server: the tools are
// derived from the description, calls run through the REST API's auth, scoping, validation and
// idempotency, and failures come back as tool errors with the error envelope and request id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { buildToolCatalog } from '../../clients/mcp/catalog.js';
import { createMcpServer, tokenScopes } from '../../clients/mcp/server.js';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { seedArtifact, seedPosts, workspaceOf } from '../support/seed.js';
import { unique, V1 } from '../support/api.js';
import { insertRows } from '../support/rows.js';

let s: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await s?.stop();
});

async function connect(token: string | null, server: TestServer = s): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const headers: Record<string, string> = token === null ? {} : { Authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
const textOf = (r: ToolResult) =>
  JSON.parse(r.content[0]!.text!) as Record<string, unknown> & {
    error?: { code: string; message: string; suggested_action?: string };
    request_id?: string;
    status?: number;
  };

async function call(c: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await c.callTool({ name, arguments: args })) as ToolResult;
}

/** An archive's pipeline: publishing marks an artifact published without an upstream. */
const HANDLE = 'mcp-test-archive';

async function newPipeline(c: Client, intent = unique('intent')) {
  const r = await call(c, 'create_pipeline_from_intent', { handle: HANDLE, intent });
  expect(r.isError).toBeFalsy();
  return r.structuredContent as { pipeline_id: string; run_id: string; resumed: boolean };
}

/** A new pipeline (made over MCP) with one seeded post and an artifact of it in review. */
async function artifactInReview(c: Client) {
  const { pipeline_id } = await newPipeline(c);
  const ws = await workspaceOf(s.running.deps, s.token);
  const [postId] = await seedPosts(s.running.deps, { workspaceId: ws, pipelineId: pipeline_id, count: 1 });
  return seedArtifact(s.running.deps, { workspaceId: ws, pipelineId: pipeline_id, postId: postId!, state: 'review' });
}

describe('authentication', () => {
  it('refuses a client without a token, or with a wrong one, before any MCP message is handled', async () => {
    await expect(connect(null)).rejects.toThrow(/401|unauthorized|bearer/i);
    await expect(connect('f'.repeat(64))).rejects.toThrow(/401|unauthorized|not valid/i);
  });

  it('answers GET with 405 (stateless endpoint), still behind the token', async () => {
    const anon = await fetch(`${s.url}/api/mcp`);
    expect(anon.status).toBe(401);
    const res = await fetch(`${s.url}/api/mcp`, { headers: { Authorization: `Bearer ${s.token}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('tools', () => {
  it('lists one tool per bearer-authenticated JSON operation of the public description, with derived input schemas', async () => {
    const spec = (await (await fetch(`${s.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId?: string;
            security?: unknown[];
            requestBody?: { content: Record<string, { schema?: { format?: string } }> };
            responses?: Record<string, { $ref?: string; content?: Record<string, unknown> }>;
          }
        >
      >;
      components: { responses: Record<string, { content?: Record<string, unknown> }> };
    };
    const expected: string[] = [];
    for (const item of Object.values(spec.paths)) {
      for (const op of Object.values(item)) {
        if (!op.operationId || !op.responses) continue; // path-level parameters
        const first2xx = Object.entries(op.responses).find(([code]) => code.startsWith('2'))?.[1];
        // every answer of a path is a $ref to components/responses
        const ok = first2xx?.$ref ? spec.components.responses[first2xx.$ref.replace('#/components/responses/', '')] : first2xx;
        const bearer = op.security === undefined || op.security.length > 0;
        // An upload (raw bytes) cannot travel in JSON arguments: `cpa mcp` offers it from a local path instead.
        const upload = Object.values(op.requestBody?.content ?? {}).some((c) => c.schema?.format === 'binary');
        if (bearer && !upload && !ok?.content?.['text/event-stream']) expected.push(op.operationId.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
      }
    }
    const c = await connect(s.token);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(expected.sort());
    // the stream, the internal receivers and the public health check are not tools
    expect(tools.map((t) => t.name)).not.toContain('stream_events');
    expect(tools.map((t) => t.name)).not.toContain('get_health');
    expect(tools.map((t) => t.name)).not.toContain('create_import');
    expect(expected).toContain('get_run');

    const create = tools.find((t) => t.name === 'create_pipeline_from_intent')!;
    expect(Object.keys(create.inputSchema.properties ?? {}).sort()).toEqual(['destinations', 'handle', 'idempotency_key', 'intent', 'tone']);
    // the key is optional for a tool (generated when absent); the others keep the body's rule
    expect(create.inputSchema.required).toEqual(['handle', 'intent']);
    expect(create.description).toContain('POST /api/agent/v1/pipelines/from-intent');

    const posts = tools.find((t) => t.name === 'list_pipeline_posts')!;
    const props = posts.inputSchema.properties as Record<string, { minimum?: number; maximum?: number; type?: string; description?: string }>;
    expect(Object.keys(props).sort()).toEqual(['cursor', 'has_artifact', 'id', 'limit']);
    expect(props.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(props.id!.description).toMatch(/pipeline/i);
    expect(posts.annotations?.readOnlyHint).toBe(true);
    expect(posts.outputSchema?.properties).toHaveProperty('next_cursor');
    // output schemas accept fields a newer server adds (v1 grows additively)
    expect(JSON.stringify(tools.map((t) => t.outputSchema))).not.toContain('"additionalProperties":false');
    expect(create.inputSchema.additionalProperties).toBe(false);

    // publish answers the accepted run (202) and takes its destinations
    const publish = tools.find((t) => t.name === 'publish_artifact')!;
    expect(Object.keys(publish.outputSchema?.properties ?? {}).sort()).toEqual(['artifact', 'run']);
    expect(Object.keys(publish.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['at', 'local_time', 'time_zone', 'utc_offset', 'destinations']));
    expect(tools.find((t) => t.name === 'unschedule_artifact')?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(tools.find((t) => t.name === 'list_pipeline_schedule')?.annotations?.readOnlyHint).toBe(true);

    // parameters declared on the path item (not the operation) are part of the input too
    const put = tools.find((t) => t.name === 'put_fetch_schema')!;
    expect(Object.keys(put.inputSchema.properties ?? {}).sort()).toEqual(['description', 'fields', 'id']);
    expect([...(put.inputSchema.required ?? [])].sort()).toEqual(['fields', 'id']);
  });

  it('creates, reads and lists through the REST API, scoped to the caller’s workspace', async () => {
    const c = await connect(s.token);
    const created = await newPipeline(c);
    const got = await call(c, 'get_pipeline', { id: created.pipeline_id });
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent).toMatchObject({ id: created.pipeline_id, handle: HANDLE });
    expect(JSON.parse(got.content[0]!.text!)).toEqual(got.structuredContent);

    const run = await call(c, 'get_run', { id: created.run_id });
    expect(run.structuredContent).toMatchObject({ run_id: created.run_id, kind: 'ingest' });

    const ws = await workspaceOf(s.running.deps, s.token);
    const postIds = await seedPosts(s.running.deps, { workspaceId: ws, pipelineId: created.pipeline_id, count: 3 });
    await seedArtifact(s.running.deps, { workspaceId: ws, pipelineId: created.pipeline_id, postId: postIds[0]!, state: 'review' });
    const page = await call(c, 'list_pipeline_posts', { id: created.pipeline_id, limit: 2 });
    const body = page.structuredContent as { data: Array<{ id: string }>; next_cursor: string | null };
    expect(body.data).toHaveLength(2);
    expect(body.next_cursor).toEqual(expect.any(String));
    const withArtifact = await call(c, 'list_pipeline_posts', { id: created.pipeline_id, has_artifact: true });
    expect((withArtifact.structuredContent as { data: Array<{ id: string }> }).data.map((p) => p.id)).toEqual([postIds[0]]);

    // another workspace's token sees nothing of it
    const other = await connect(await s.newWorkspace('Other MCP'));
    const hidden = await call(other, 'get_pipeline', { id: created.pipeline_id });
    expect(hidden.isError).toBe(true);
    expect(textOf(hidden).error!.code).toBe('not_found');
  });

  it('sets a platform variant (path parameters and body side by side), refusing a part over the limit as a tool error naming it', async () => {
    const c = await connect(s.token);
    const a = await artifactInReview(c);
    const set = await call(c, 'put_artifact_variant', { id: a.id, platform: 'bluesky', parts: ['First 👩‍👩‍👧‍👦 post.', 'Second, 日本語.'], numbered: true });
    expect(set.isError).toBeFalsy();
    expect(set.structuredContent).toMatchObject({
      platform: 'bluesky',
      is_thread: true,
      parts: [
        { text: 'First 👩‍👩‍👧‍👦 post. 1/2', length: 17 },
        { text: 'Second, 日本語. 2/2', length: 16 },
      ],
    });
    const over = await call(c, 'put_artifact_variant', { id: a.id, platform: 'x', parts: ['x'.repeat(281)] });
    expect(over.isError).toBe(true);
    expect(textOf(over).error).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('body.parts[0] counts 281 (weighted)') });
    const got = await call(c, 'get_artifact', { id: a.id });
    expect((got.structuredContent as { variants: Array<{ platform: string }> }).variants.map((v) => v.platform)).toEqual(['bluesky']);
  });

  it('records a post made by hand with the REST idempotency: the same key replays, over MCP and over REST alike', async () => {
    const c = await connect(s.token);
    const art = await artifactInReview(c);
    const key = newIdempotencyKey();
    const args = { id: art.id, platform: 'x', url: 'https://x.com/ada_lovelace/status/1859951771532320873', idempotency_key: key };
    const first = await call(c, 'mark_artifact_published', args);
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ id: art.id, state: 'published', destinations: [{ destination: 'manual:x', state: 'live' }] });
    const again = await call(c, 'mark_artifact_published', args);
    expect(again.structuredContent).toEqual(first.structuredContent);
    const viaRest = await s.client().POST(`${V1}/artifacts/{id}/mark-published`, {
      params: { path: { id: art.id } },
      body: { platform: 'x', url: args.url, idempotency_key: key },
    });
    expect(viaRest.response.headers.get('idempotent-replayed')).toBe('true');
    expect(viaRest.data).toEqual(first.structuredContent);
    // without a key a fresh one is generated, so a publish is a real (refused: already published) attempt
    const fresh = await call(c, 'publish_artifact', { id: art.id });
    expect(textOf(fresh).error!.code).toBe('state_conflict');
  });

  it("sets a pipeline's default destinations", async () => {
    const c = await connect(s.token);
    const { pipeline_id } = await newPipeline(c);
    const set = await call(c, 'set_pipeline_destinations', { id: pipeline_id, destinations: [] });
    expect(set.isError).toBeFalsy();
    expect(set.structuredContent).toMatchObject({ id: pipeline_id, destinations: [] });
    const refused = await call(c, 'set_pipeline_destinations', { id: pipeline_id, destinations: [{ platform: 'bluesky', handle: 'nobody.bsky.example' }] });
    expect(textOf(refused).error).toMatchObject({ code: 'credential_missing', suggested_action: 'connect_account' });
  });
});

describe('tool errors', () => {
  it('carry the error code, message, suggested action, HTTP status and request id', async () => {
    const c = await connect(s.token);
    const missing = await call(c, 'get_pipeline', { id: 'pl_does_not_exist' });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toBeUndefined();
    const e = textOf(missing);
    expect(e.error).toMatchObject({ code: 'not_found', message: expect.stringMatching(/pipeline/) });
    expect(e.status).toBe(404);
    expect(e.request_id).toMatch(/^req_[0-9a-f]{32}$/);

    const { pipeline_id } = await newPipeline(c);
    const ws = await workspaceOf(s.running.deps, s.token);
    const [postId] = await seedPosts(s.running.deps, { workspaceId: ws, pipelineId: pipeline_id, count: 1 });
    const draft = await seedArtifact(s.running.deps, { workspaceId: ws, pipelineId: pipeline_id, postId: postId!, state: 'draft' });
    const forbidden = textOf(await call(c, 'publish_artifact', { id: draft.id }));
    expect(forbidden.error!.code).toBe('forbidden');
    expect(forbidden.error!.suggested_action).toEqual(expect.any(String));
  });

  it('are the REST validation: a bad argument is validation_failed naming the field', async () => {
    const c = await connect(s.token);
    const { pipeline_id } = await newPipeline(c);
    const bad = textOf(await call(c, 'list_pipeline_posts', { id: pipeline_id, limit: 0 }));
    expect(bad.error!.code).toBe('validation_failed');
    expect(bad.error!.message).toMatch(/limit/);
    const extra = textOf(await call(c, 'create_pipeline_from_intent', { handle: '@ada@mastodon.example', intent: 'x', colour: 'blue' }));
    expect(extra.error!.code).toBe('validation_failed');
    expect(extra.error!.message).toMatch(/colour/);
    const shortKey = textOf(await call(c, 'create_pipeline_from_intent', { handle: '@ada@mastodon.example', intent: 'x', idempotency_key: 'short' }));
    expect(shortKey.error!.message).toMatch(/idempotency_key/);
  });

  it('a GET tool called with an argument it does not have, or of the wrong type, is validation_failed naming it; nothing is sent', async () => {
    const c = await connect(s.token);
    const { pipeline_id } = await newPipeline(c);
    const before = await call(c, 'get_pipeline', { id: pipeline_id });
    expect(before.isError).toBeFalsy();
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['get_pipeline', { id: pipeline_id, bogus: 1 }, 'bogus is not an argument of get_pipeline (it takes id)'],
      ['get_pipeline_inbox', { id: pipeline_id, since: 3 }, 'since is not an argument of get_pipeline_inbox (it takes id, cursor, limit)'],
      ['get_pipeline', { id: 42 }, 'id must be string, not integer 42'],
      ['list_pipeline_posts', { id: pipeline_id, limit: '3' }, 'limit must be integer, not string "3"'],
      ['list_pipeline_posts', { limit: 3 }, 'id is required by list_pipeline_posts'],
      ['publish_artifact', { id: 'art_x', colour: 'blue' }, 'colour is not an argument of publish_artifact'],
    ];
    for (const [tool, args, message] of cases) {
      const r = await call(c, tool, args);
      expect([tool, r.isError]).toEqual([tool, true]);
      const e = textOf(r);
      expect([tool, e.error!.code]).toEqual([tool, 'validation_failed']);
      expect(e.error!.message).toContain(message);
      expect(e.error!.message).not.toMatch(/GET\/HEAD|internal/i);
    }
  });

  it('an unknown tool is a protocol error', async () => {
    const c = await connect(s.token);
    await expect(c.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });
});

describe('resources and prompts', () => {
  it('reads a pipeline as a resource through its template, and refuses what the token cannot see', async () => {
    const c = await connect(s.token);
    const { resourceTemplates } = await c.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['cpa://pipelines/{pipeline_id}/inbox', 'cpa://pipelines/{pipeline_id}', 'cpa://runs/{run_id}']),
    );
    const { pipeline_id } = await newPipeline(c);
    const read = await c.readResource({ uri: `cpa://pipelines/${pipeline_id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: pipeline_id });
    const ws = await workspaceOf(s.running.deps, s.token);
    const [postId] = await seedPosts(s.running.deps, { workspaceId: ws, pipelineId: pipeline_id, count: 1 });
    const art = await seedArtifact(s.running.deps, { workspaceId: ws, pipelineId: pipeline_id, postId: postId!, state: 'review' });
    const inbox = await c.readResource({ uri: `cpa://pipelines/${pipeline_id}/inbox` });
    expect(inbox.contents[0]).toMatchObject({ mimeType: 'application/json' });
    const items = (JSON.parse((inbox.contents[0] as { text: string }).text) as { data: Array<{ kind: string; artifact_id: string | null }> }).data;
    expect(items).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'draft_in_review', artifact_id: art.id })]));
    await expect(c.readResource({ uri: 'cpa://pipelines/pl_nope' })).rejects.toThrow(/not_found/);
    await expect(c.readResource({ uri: 'https://example.com/' })).rejects.toThrow(/Unknown resource/);
  });

  it('offers a triage prompt that embeds the inbox resource', async () => {
    const c = await connect(s.token);
    const { prompts } = await c.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('triage_inbox');
    const { pipeline_id } = await newPipeline(c);
    const prompt = await c.getPrompt({ name: 'triage_inbox', arguments: { pipeline_id } });
    expect(prompt.messages[0]!.content).toMatchObject({ type: 'text', text: expect.stringContaining(pipeline_id) });
    expect(prompt.messages[1]!.content).toMatchObject({ type: 'resource', resource: { uri: `cpa://pipelines/${pipeline_id}/inbox` } });
    const embedded = JSON.parse((prompt.messages[1]!.content as { resource: { text: string } }).resource.text) as { pipeline_id: string; data: unknown[] };
    expect(embedded).toMatchObject({ pipeline_id, data: expect.any(Array) });
    await expect(c.getPrompt({ name: 'triage_inbox', arguments: {} })).rejects.toThrow(/pipeline_id/);
  });
});

describe('lists', () => {
  it('resources/list browses the workspace: its pipelines, then its artifacts, page after page, nothing twice', async () => {
    const token = await s.newWorkspace('Browsing');
    const ws = await workspaceOf(s.running.deps, token);
    const at = (i: number) => new Date(Date.UTC(2026, 10, 1) + i * 1000);
    const pipelines = Array.from({ length: 55 }, (_, i) => ({
      id: `pl_browse${String(i).padStart(4, '0')}`,
      workspaceId: ws,
      handle: `@ada${i}@mastodon.example`,
      intent: `Weekly notes ${i} 📝`,
      tone: null,
      platform: 'mastodon',
      createdAt: at(i),
      updatedAt: at(i),
    }));
    await insertRows(s.running.deps.db, 'Pipeline', pipelines);
    const [postId] = await seedPosts(s.running.deps, { workspaceId: ws, pipelineId: pipelines[0]!.id, count: 1 });
    const arts = [];
    for (const state of ['review', 'ready', 'published'])
      arts.push(
        await seedArtifact(s.running.deps, { workspaceId: ws, pipelineId: pipelines[0]!.id, postId: postId!, state, text: `A ${state} draft: 🚀 ship it` }),
      );
    const c = await connect(token);
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await c.listResources(cursor ? { cursor } : {});
      uris.push(...r.resources.map((x) => x.uri));
      cursor = r.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    // Pipelines newest first; the artifacts after them (seeded in the same millisecond, their order
    // among themselves is the list's tie-break on ids): every one exactly once.
    const pipelineUris = pipelines.map((p) => `cpa://pipelines/${p.id}`).reverse();
    expect(uris.slice(0, pipelineUris.length)).toEqual(pipelineUris);
    expect(uris.slice(pipelineUris.length).sort()).toEqual(arts.map((a) => `cpa://artifacts/${a.id}`).sort());
    const first = (await c.listResources()).resources[0]!;
    expect(first).toMatchObject({ name: 'pl_browse0054', title: '@ada54@mastodon.example: Weekly notes 54 📝', mimeType: 'application/json' });
    const read = await c.readResource({ uri: `cpa://artifacts/${arts[0]!.id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: arts[0]!.id, state: 'review' });
    await expect(c.listResources({ cursor: 'not-a-cursor' })).rejects.toThrow(/cursor/);
    const forged = Buffer.from(JSON.stringify({ list: 'list_artifacts', cursor: 'eyJ9.forged' })).toString('base64url');
    await expect(c.listResources({ cursor: forged })).rejects.toThrow(/bad_request/);
  });

  it('offers a tool per list, with the filters as arguments (several states as an array)', async () => {
    const c = await connect(s.token);
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_pipelines', 'list_artifacts', 'list_accounts', 'list_imports', 'list_runs', 'get_calendar']));
    const art = await artifactInReview(c);
    const r = await call(c, 'list_artifacts', { state: ['review', 'ready'], pipeline_id: art.pipelineId });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { data: Array<{ id: string }> }).data.map((a) => a.id)).toEqual([art.id]);
    const bad = textOf(await call(c, 'get_calendar', { from: '2027-01-01T00:00:00Z', to: '2027-06-01T00:00:00Z' }));
    expect([bad.status, bad.error!.code]).toEqual([422, 'validation_failed']);
    expect(bad.error!.message).toContain('query.to');
  });
});

describe('rate limit', () => {
  it('counts a tool call once against the token (the MCP request, not its REST call again), and refuses MCP requests past the quota', async () => {
    const limited = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '10' } });
    try {
      const c = await connect(limited.token, limited);
      // Spend the budget over REST until two requests are left.
      const rest = limited.client(limited.token, { maxRetries: 0 });
      const remainingAfterGet = async () =>
        Number((await rest.GET(`${V1}/runs/{id}`, { params: { path: { id: 'run_none' } } })).response.headers.get('ratelimit-remaining'));
      for (let remaining = Infinity; remaining > 2; ) remaining = await remainingAfterGet();
      // The tool call gets through to the operation (404 for this id), for one request of the quota ...
      const body = textOf(await call(c, 'get_run', { id: 'run_none' }));
      expect([body.status, body.error!.code]).toEqual([404, 'not_found']);
      // ... so that exactly one is left for this REST request.
      expect(await remainingAfterGet()).toBe(0);
      // The MCP endpoint itself is now refused.
      await expect(call(c, 'get_run', { id: 'run_none' })).rejects.toThrow(/429|rate/i);
      // A forged loopback header counts like any request (and is refused like one).
      const forged = await fetch(`${limited.url}/api/agent/v1/runs/run_none`, {
        headers: { Authorization: `Bearer ${limited.token}`, 'x-content-pipeline-loopback': 'f'.repeat(64) },
      });
      expect(forged.status).toBe(429);
    } finally {
      await limited.stop();
    }
  });
});

describe('batches', () => {
  /** A JSON-RPC batch of `n` get_run calls, posted as a host would. */
  const batch = (server: TestServer, n: number, first = 1) =>
    fetch(`${server.url}/api/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(
        Array.from({ length: n }, (_, i) => ({
          jsonrpc: '2.0',
          id: first + i,
          method: 'tools/call',
          params: { name: 'get_run', arguments: { id: 'run_none' } },
        })),
      ),
    });

  it('count every message against the token, and a batch that does not fit is refused whole with 429, counting nothing', async () => {
    const limited = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '10' } });
    try {
      const ok = await batch(limited, 4);
      expect(ok.status).toBe(200);
      const answers = (await ok.json()) as Array<{ id: number; result: ToolResult }>;
      expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3, 4]);
      for (const a of answers) expect(textOf(a.result).status).toBe(404); // each call reached the operation
      expect(ok.headers.get('ratelimit-remaining')).toBe('6');

      const refused = await batch(limited, 7, 10);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-request-id')).toMatch(/^req_/);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('ratelimit-limit')).toBe('10');
      const retry = Number(refused.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('rate_limited');
      expect(body.error.message).toMatch(/7 messages/);

      // Nothing of the refused batch was counted: 6 are left, so a batch of 6 fits exactly ...
      const rest = await batch(limited, 6, 20);
      expect(rest.status).toBe(200);
      expect(rest.headers.get('ratelimit-remaining')).toBe('0');
      // ... and then a single message is refused before its body is read.
      expect((await batch(limited, 1, 30)).status).toBe(429);
    } finally {
      await limited.stop();
    }
  });

  it('a batch larger than the whole quota is refused, saying to split it', async () => {
    const limited = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      const refused = await batch(limited, 6);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/split/i);
      expect((await batch(limited, 5)).status).toBe(200);
      // Past the 100 messages a batch may carry: refused for one request, not 101.
      const tooMany = await batch(s, 101);
      expect(tooMany.status).toBe(400);
      expect(((await tooMany.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'bad_request',
        message: expect.stringMatching(/at most 100/),
      });
      expect(Number(tooMany.headers.get('ratelimit-remaining'))).toBeGreaterThan(400);
    } finally {
      await limited.stop();
    }
  });
});

describe('runs', () => {
  it('getRun answers the run of a created pipeline and 404 for another workspace', async () => {
    const created = await unwrap(
      s.client().POST(`${V1}/pipelines/from-intent`, { body: { handle: 'ada.bsky.social', intent: 'runs', idempotency_key: newIdempotencyKey() } }),
    );
    const run = await unwrap(s.client().GET(`${V1}/runs/{id}`, { params: { path: { id: created.run_id } } }));
    expect(run).toMatchObject({ run_id: created.run_id, kind: 'ingest', status: expect.any(String) });
    const other = await s.client(await s.newWorkspace('Runs other')).GET(`${V1}/runs/{id}`, { params: { path: { id: created.run_id } } });
    expect(other.response.status).toBe(404);
  });
});

/** A named token made through the API by the full-power first-launch token: its secret. */
async function tokenWith(scopes: string[]): Promise<string> {
  const res = await fetch(`${s.url}${V1}/tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `mcp ${scopes.join('+')}`, scopes }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { secret: string }).secret;
}

/** The tools a token with `scopes` may call, by the description's x-required-scope. */
async function toolsFor(scopes: string[]): Promise<string[]> {
  const catalog = buildToolCatalog((await (await fetch(`${s.url}/openapi.json`)).json()) as Record<string, unknown>);
  return catalog
    .filter((t) => t.requiredScope === 'none' || scopes.includes(t.requiredScope))
    .map((t) => t.name)
    .sort();
}

describe('tools by scope', () => {
  it('lists only the tools whose operation the token may call', async () => {
    for (const scopes of [['read'], ['read', 'draft'], ['draft', 'publish']]) {
      const c = await connect(await tokenWith(scopes));
      const names = (await c.listTools()).tools.map((t) => t.name).sort();
      expect([scopes, names]).toEqual([scopes, await toolsFor(scopes)]);
      // Any token may ask what it is.
      expect(names).toContain('get_current_token');
      expect(names).not.toContain('create_token');
      expect(names).not.toContain('create_desk_sign_in_link');
    }
    const read = await connect(await tokenWith(['read']));
    const names = (await read.listTools()).tools.map((t) => t.name);
    expect(names).toContain('get_artifact');
    expect(names).not.toContain('publish_artifact');
    expect(names).not.toContain('draft_from_post');
    // The first-launch token holds every scope: every tool.
    const all = (await (await connect(s.token)).listTools()).tools.map((t) => t.name).sort();
    expect(all).toEqual(await toolsFor(['read', 'draft', 'approve', 'publish', 'accounts', 'admin']));
    // What the token is, as a tool.
    const me = await call(read, 'get_current_token');
    expect(me.structuredContent).toMatchObject({ name: 'mcp read', scopes: ['read'], revoked_at: null });
  });

  it('refuses a call of a tool the token may not use, saying which scope it lacks, and does nothing', async () => {
    const full = await connect(s.token);
    const artifact = await artifactInReview(full);
    const c = await connect(await tokenWith(['read', 'draft']));
    for (const [name, args, scope] of [
      ['publish_artifact', { id: artifact.id }, 'publish'],
      ['transition_artifact', { id: artifact.id, to: 'discarded' }, 'approve'],
      ['create_token', { name: 'more', scopes: ['admin'] }, 'admin'],
    ] as const) {
      const r = await call(c, name, args);
      expect(r.isError).toBe(true);
      const e = textOf(r);
      expect([name, e.error]).toEqual([
        name,
        { code: 'forbidden', message: expect.stringContaining(`lacks the scope '${scope}'`), suggested_action: 'request_scope' },
      ]);
      expect(e.error!.message).toContain('its scopes are: read, draft');
    }
    const after = await call(full, 'get_artifact', { id: artifact.id });
    expect(after.structuredContent).toMatchObject({ state: 'review' });
  });
});

describe('confirmation of destructive calls (elicitation)', () => {
  /** `cpa mcp`'s arrangement (one long-lived server for a client), over an in-memory pair instead of stdio. */
  async function local(answer: ((message: string) => ElicitResult) | null, token = s.token) {
    const spec = (await (await fetch(`${s.url}/openapi.json`)).json()) as Record<string, unknown>;
    const api = s.client(token, { maxRetries: 0 });
    const server = createMcpServer({ catalog: buildToolCatalog(spec), client: api, scopes: tokenScopes(api) });
    const client = new Client({ name: 'mcp-test', version: '1.0.0' }, { capabilities: answer ? { elicitation: {} } : {} });
    const asked: string[] = [];
    if (answer) {
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        const message = req.params.message;
        asked.push(message);
        return answer(message);
      });
    }
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    await client.connect(b);
    clients.push(client);
    return { client, asked };
  }

  it('asks first; declined, dismissed or left unticked, nothing is done; accepted, the call is made', async () => {
    const full = await connect(s.token);
    const artifact = await artifactInReview(full);
    let reply: ElicitResult = { action: 'decline' };
    const { client, asked } = await local(() => reply);
    for (const no of [{ action: 'decline' }, { action: 'cancel' }, { action: 'accept', content: { confirm: false } }] as ElicitResult[]) {
      reply = no;
      const r = await call(client, 'transition_artifact', { id: artifact.id, to: 'discarded' });
      expect(r.isError).toBe(true);
      expect(textOf(r).error).toMatchObject({ code: 'not_confirmed', message: expect.stringContaining('nothing was done') });
      expect((await call(full, 'get_artifact', { id: artifact.id })).structuredContent).toMatchObject({ state: 'review' });
    }
    expect(asked).toHaveLength(3);
    // The person sees the tool and the call's arguments.
    expect(asked[0]).toContain('transition_artifact');
    expect(asked[0]).toContain(artifact.id);
    expect(asked[0]).toContain('"to": "discarded"');

    reply = { action: 'accept', content: { confirm: true } };
    const done = await call(client, 'transition_artifact', { id: artifact.id, to: 'discarded' });
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ state: 'discarded' });
    expect(asked).toHaveLength(4);
  });

  it('asks only for destructive tools, and not for a call the token may not make', async () => {
    const full = await connect(s.token);
    const artifact = await artifactInReview(full);
    const { client, asked } = await local(() => ({ action: 'accept', content: { confirm: true } }), await tokenWith(['read', 'draft']));
    expect((await call(client, 'get_artifact', { id: artifact.id })).isError).toBeFalsy();
    expect((await call(client, 'create_pipeline_from_intent', { handle: HANDLE, intent: unique('intent') })).isError).toBeFalsy();
    expect(asked).toEqual([]);
    const refused = await call(client, 'publish_artifact', { id: artifact.id });
    expect(textOf(refused).error?.code).toBe('forbidden');
    expect(asked).toEqual([]);
    // A destructive tool it may call: asked, with what reaches outside said.
    const variant = await call(client, 'put_artifact_variant', { id: artifact.id, platform: 'bluesky', parts: ['Confirmed text.'] });
    expect(variant.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
  });

  it('a client without the capability calls as before (its host reads the annotations); so does one over the stateless HTTP endpoint', async () => {
    const full = await connect(s.token);
    const first = await artifactInReview(full);
    const { client } = await local(null);
    expect((await call(client, 'transition_artifact', { id: first.id, to: 'discarded' })).structuredContent).toMatchObject({ state: 'discarded' });

    // Over HTTP each POST is a new server, which cannot learn the capability nor receive the answer.
    const second = await artifactInReview(full);
    const http = new Client({ name: 'mcp-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    let asked = 0;
    http.setRequestHandler(ElicitRequestSchema, async () => {
      asked += 1;
      return { action: 'decline' };
    });
    await http.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
    clients.push(http);
    expect((await call(http, 'transition_artifact', { id: second.id, to: 'discarded' })).structuredContent).toMatchObject({ state: 'discarded' });
    expect(asked).toBe(0);
  });
});
