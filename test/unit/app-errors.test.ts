// Errors built one way: the factories of server/errors.ts (a code always with its status),
// `retryable` (what the job worker retries), no hand-built AppError elsewhere, and the MCP server
// telling the REST API's errors, an unreachable REST API, a file it cannot read and its own bugs apart.
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../clients/typescript/src/index.js';
import {
  AppError,
  backendUnavailable,
  badRequest,
  credentialError,
  forbidden,
  internalError,
  invalid,
  missing,
  notFound,
  rateLimited,
  retryLater,
  stateConflict,
  unauthorized,
  validationFailed,
} from '../../server/errors.js';
import { buildToolCatalog, type ToolDef } from '../../clients/mcp/catalog.js';
import { createMcpServer, errorBody } from '../../clients/mcp/server.js';
import { loadSpec } from '../../server/spec.js';
import { V1 } from '../support/api.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the AppError factories', () => {
  it('pair each code with its status and keep the message and extras', () => {
    const cases: Array<[AppError, number, string]> = [
      [badRequest('The cursor is not valid.'), 400, 'bad_request'],
      [badRequest('Too large.', { status: 413, headers: { Connection: 'close' } }), 413, 'bad_request'],
      [unauthorized('No token.'), 401, 'unauthorized'],
      [forbidden('article is a built-in schema.'), 403, 'forbidden'],
      [notFound('pipeline'), 404, 'not_found'],
      [missing('No route GET /x.'), 404, 'not_found'],
      [stateConflict('The artifact is published.'), 409, 'state_conflict'],
      [retryLater('Still being processed.'), 409, 'state_conflict'],
      [validationFailed('body.intent', 'must not be empty.'), 422, 'validation_failed'],
      [invalid('body.handle: not a handle'), 422, 'validation_failed'],
      [credentialError('credential_dead', 'The mastodon credential no longer works.'), 424, 'credential_dead'],
      [rateLimited('Slow down.', 7), 429, 'rate_limited'],
      [backendUnavailable('The page answered HTTP 503.', { upstreamStatus: 503 }), 502, 'backend_unavailable'],
      [backendUnavailable('Shutting down.', { status: 503 }), 503, 'backend_unavailable'],
      [internalError(), 500, 'internal_error'],
    ];
    for (const [err, status, code] of cases) expect([err.status, err.code], err.message).toEqual([status, code]);
    expect(notFound('pipeline').message).toBe('No pipeline with this id in your workspace.');
    expect(validationFailed('body.intent', 'must not be empty.').message).toBe('body.intent must not be empty.');
    expect(retryLater('Still being processed.').envelope()).toEqual({
      error: { code: 'state_conflict', message: 'Still being processed.', suggested_action: 'retry_later' },
    });
    expect(rateLimited('Slow down.', 7).extras.headers).toEqual({ 'Retry-After': '7' });
    expect(badRequest('Too large.', { status: 413, headers: { Connection: 'close' } }).extras).toEqual({ headers: { Connection: 'close' } });
  });

  it('mark as retryable an upstream failure whose own answer may change, and nothing else', () => {
    expect(backendUnavailable('The page could not be fetched: timeout').retryable).toBe(true);
    expect(backendUnavailable('The page answered HTTP 503.', { upstreamStatus: 503 }).retryable).toBe(true);
    expect(backendUnavailable('The page answered HTTP 429.', { upstreamStatus: 429 }).retryable).toBe(true);
    expect(backendUnavailable('The page answered HTTP 404.', { upstreamStatus: 404 }).retryable).toBe(false);
    expect(backendUnavailable('Not configured.', { status: 503, retryable: false }).retryable).toBe(false);
    for (const err of [
      internalError(),
      validationFailed('body.url', 'is refused'),
      stateConflict('published'),
      credentialError('credential_missing', 'connect it'),
    ]) {
      expect(err.retryable, err.code).toBe(false);
    }
  });

  it('are the only way the server builds one (services/artifacts.ts and services/drafting.ts are being rewritten elsewhere)', () => {
    const allowed = new Set(['server/errors.ts', 'server/services/artifacts.ts', 'server/services/drafting.ts']);
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) walk(rel);
        else if (rel.endsWith('.ts') && !allowed.has(rel) && /new AppError\(/.test(readFileSync(path.join(root, rel), 'utf8'))) offenders.push(rel);
      }
    };
    walk('server');
    expect(offenders, 'build errors with the factories of server/errors.ts').toEqual([]);
  });
});

describe('MCP tool errors', () => {
  it('report an unreachable REST API as backend_unavailable to retry, an unreadable file as validation_failed, and a bug of ours as internal_error', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const unreachable = await createApiClient({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 })
      .GET(`${V1}/runs/{id}`, { params: { path: { id: 'run_x' } } })
      .catch((e: unknown) => e);
    expect(errorBody(unreachable)).toMatchObject({
      error: { code: 'backend_unavailable', suggested_action: 'retry_later', message: expect.stringMatching(/could not be reached: ECONNREFUSED/) },
    });

    const noFile = await readFile('/nonexistent/export-🧑‍💻.zip').catch((e: unknown) => e);
    expect(errorBody(noFile)).toMatchObject({ error: { code: 'validation_failed', message: expect.stringMatching(/^path cannot be read: ENOENT/) } });

    const bug = (() => {
      try {
        (undefined as unknown as { name: string }).name.trim();
      } catch (e) {
        return e;
      }
    })();
    const body = errorBody(bug);
    expect(body.error.code).toBe('internal_error');
    expect(body.error.message).toMatch(/^The MCP server failed on its side \(a bug; please report it\): Cannot read properties of undefined/);
    expect(body.error).not.toHaveProperty('suggested_action');
  });

  it('come back from a tool call as an isError result naming internal_error when the tool itself breaks', async () => {
    const broken: ToolDef = { ...buildToolCatalog(loadSpec('public')).find((t) => t.name === 'get_run')!, run: async () => JSON.parse('{not json') as unknown };
    const server = createMcpServer({ catalog: [broken], client: createApiClient({ baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }) });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 'errors-test', version: '1.0.0' });
    await client.connect(b);
    const r = (await client.callTool({ name: 'get_run', arguments: { id: 'run_x' } })) as { isError?: boolean; content: Array<{ text: string }> };
    expect(r.isError).toBe(true);
    expect(JSON.parse(r.content[0]!.text)).toMatchObject({ error: { code: 'internal_error' }, status: null });
    await client.close();
  });
});
