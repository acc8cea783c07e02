// What one MCP request may multiply besides the rate limit: its tool calls run at most a few at
// a time, and none starts after the request's time budget is spent. A fake REST client records
// how many calls are open at once and finishes them when the test says so (no timing involved).
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ApiClient } from '../../clients/typescript/src/index.js';
import { buildToolCatalog } from '../../clients/mcp/catalog.js';
import { createMcpServer, MCP_MAX_CONCURRENT_CALLS } from '../../clients/mcp/server.js';
import { loadSpec } from '../../server/spec.js';

const catalog = buildToolCatalog(loadSpec('public'));

function fakeClient() {
  const pending: Array<() => void> = [];
  const state = { open: 0, maxOpen: 0, calls: 0, pending };
  const client = {
    request: () => {
      state.calls += 1;
      state.open += 1;
      state.maxOpen = Math.max(state.maxOpen, state.open);
      return new Promise((resolve) => {
        pending.push(() => {
          state.open -= 1;
          resolve({ data: { run_id: 'run_x' }, response: new Response('{}', { status: 200 }) });
        });
      });
    },
  } as unknown as ApiClient;
  return { client, state };
}

async function connected(opts: Parameters<typeof createMcpServer>[0]) {
  const server = createMcpServer(opts);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'bounds-test', version: '1.0.0' });
  await client.connect(b);
  return client;
}

/** Lets the event loop run until `check` holds. */
async function until(check: () => boolean) {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setImmediate(r));
  expect(check()).toBe(true);
}

describe('MCP call bounds', () => {
  it(`runs at most ${MCP_MAX_CONCURRENT_CALLS} tool calls of one server at once, the others waiting their turn`, async () => {
    const { client: api, state } = fakeClient();
    const c = await connected({ catalog, client: api });
    const calls = Array.from({ length: 12 }, () => c.callTool({ name: 'get_run', arguments: { id: 'run_x' } }));
    await until(() => state.open === MCP_MAX_CONCURRENT_CALLS);
    while (state.calls < 12 || state.pending.length) {
      await until(() => state.pending.length > 0);
      state.pending.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    const results = await Promise.all(calls);
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(state.maxOpen).toBe(MCP_MAX_CONCURRENT_CALLS);
    expect(state.calls).toBe(12);
  });

  it('starts no call once the time budget is spent: the rest are tool errors saying to send them again', async () => {
    const { client: api, state } = fakeClient();
    let now = 0;
    const c = await connected({ catalog, client: api, maxConcurrentCalls: 1, deadline: { at: 1_000, now: () => now } });
    const calls = Array.from({ length: 3 }, () => c.callTool({ name: 'get_run', arguments: { id: 'run_x' } }));
    await until(() => state.open === 1);
    now = 1_000; // the budget runs out while the first call is open
    state.pending.shift()!();
    const [first, ...rest] = (await Promise.all(calls)) as Array<{ isError?: boolean; content: Array<{ text: string }> }>;
    expect(first!.isError).toBeFalsy();
    expect(state.calls).toBe(1);
    for (const r of rest) {
      expect(r.isError).toBe(true);
      expect(JSON.parse(r.content[0]!.text)).toMatchObject({ error: { code: 'backend_unavailable', suggested_action: 'retry_later' }, status: null });
    }
  });
});
