// MCP over Streamable HTTP at /api/mcp, mounted after bearer auth and the rate limit so that it
// shares them. Stateless: every POST gets a fresh server and transport (no session to keep, so
// any instance behind a load balancer can answer), and the JSON-RPC answer comes back as JSON.
// Tool calls go back into this same server's REST API over loopback, with the caller's token;
// the rate limit counts the MCP request, not its tools' REST calls again (http/loopback.ts).
import type { IncomingMessage } from 'node:http';
import express from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createApiClient } from '../../clients/typescript/src/index.js';
import { markLoopback } from '../http/loopback.js';
import type { ToolDef } from './catalog.js';
import { createMcpServer } from './server.js';

export const MCP_PATH = '/api/mcp';

/** The address this request arrived on: the server itself, reachable from itself. */
export function loopbackUrl(req: IncomingMessage): string {
  const raw = req.socket.localAddress ?? '127.0.0.1';
  const host = raw.startsWith('::ffff:') ? raw.slice(7) : raw;
  return `http://${host.includes(':') ? `[${host}]` : host}:${req.socket.localPort}`;
}

/** fetch for the tools' REST calls, marked as loopback calls so that the rate limit counts the MCP request only. */
const loopbackFetch: typeof fetch = (input, init) => {
  const request = new Request(input as RequestInfo, init);
  markLoopback(request.headers);
  return fetch(request);
};

/** The bearer token auth already accepted. */
function tokenOf(req: IncomingMessage): string {
  return /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
}

/** Mounts the endpoint at exactly `/api/mcp` (the app's routing is case-sensitive and strict). */
export function mountMcp(app: express.Express, opts: { catalog: ToolDef[]; version?: string }): void {
  app.post(MCP_PATH, express.json({ limit: '1mb' }), async (req, res, next) => {
    try {
      // No retries here: the tools' REST calls are not counted again (the MCP request was), and any
      // other failure comes back to the agent as a tool error.
      const client = createApiClient({ baseUrl: loopbackUrl(req), token: tokenOf(req), maxRetries: 0, userAgent: 'content-pipeline-mcp/1', fetch: loopbackFetch });
      const server = createMcpServer({ catalog: opts.catalog, client, version: opts.version });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      next(err);
    }
  });
  // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
  app.all(MCP_PATH, (_req, res) => {
    res
      .status(405)
      .setHeader('Allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST.' }, id: null });
  });
}
