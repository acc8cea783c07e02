// MCP over Streamable HTTP at /api/mcp, mounted after bearer auth and the rate limit so that it
// shares them. Stateless: every POST gets a fresh server and transport (no session to keep, so
// any instance behind a load balancer can answer), and the JSON-RPC answer comes back as JSON.
// Tool calls go back into this same server's REST API over loopback, with the caller's token;
// the rate limit counts each JSON-RPC message of the POST (a batch costs what its messages sent
// one by one would), not its tools' REST calls again (http/loopback.ts). What else a batch could
// multiply is bounded too: its body shares one 1 MiB limit, its calls run a few at a time
// (MCP_MAX_CONCURRENT_CALLS) and none starts after MCP_REQUEST_BUDGET_MS.
import type { IncomingMessage } from 'node:http';
import express from 'express';
import { createApiClient } from '../../clients/typescript/src/index.js';
import { badRequest } from '../errors.js';
import { bearerToken } from '../http/auth.js';
import { markLoopback } from '../http/loopback.js';
import type { Charge } from '../http/rate-limit.js';
import type { Clock } from '../lib/clock.js';
import type { ToolDef } from '../../clients/mcp/catalog.js';

// The MCP SDK (and zod under it) is loaded by the first MCP request, not at start: a server
// nobody reaches over MCP does not pay for it (issue 27: start-up time).
let sdk: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('../../clients/mcp/server.js')]> | undefined;
const loadSdk = () => (sdk ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('../../clients/mcp/server.js')]));

export const MCP_PATH = '/api/mcp';
/** The most messages of one batch (the SDK's own limit, refused here before they are counted). */
export const MCP_MAX_BATCH = 100;
/** How long one POST may keep starting tool calls; calls that could not start by then are tool errors to send again. */
export const MCP_REQUEST_BUDGET_MS = 60_000;

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
const tokenOf = (req: IncomingMessage): string => bearerToken(req.headers.authorization) ?? '';

/** A POST of JSON-RPC messages: its cost against the rate limit is known once its body is read. */
export const isMcpPost = (req: IncomingMessage & { path: string }) => req.method === 'POST' && req.path === MCP_PATH;

/**
 * What a POST costs against the token's quota: one request per JSON-RPC message, so that a batch
 * (up to the SDK's 100 messages) costs what the same calls sent one by one would. Each message
 * makes at most one REST call, which is then not counted again (http/loopback.ts).
 */
export const messageCount = (body: unknown) => (Array.isArray(body) ? Math.max(1, body.length) : 1);

/** Mounts the endpoint at exactly `/api/mcp` (the app's routing is case-sensitive and strict). */
export function mountMcp(app: express.Express, opts: { catalog: ToolDef[]; charge: Charge; clock: Clock; version?: string }): void {
  const { charge, clock } = opts;
  const now = () => clock.now().getTime();
  const json = express.json({ limit: '1mb' });
  // A body that cannot be read costs one request, like any refused request that got this far.
  const chargeRefused: express.ErrorRequestHandler = (err, req, res, next) => {
    charge(req, res, 1).then(() => next(err), next);
  };
  app.post(MCP_PATH, json, chargeRefused, async (req: express.Request, res: express.Response, next: express.NextFunction) => {
    try {
      const messages = messageCount(req.body);
      if (messages > MCP_MAX_BATCH) {
        await charge(req, res, 1);
        throw badRequest(`A JSON-RPC batch carries at most ${MCP_MAX_BATCH} messages; this one has ${messages}. Split it.`);
      }
      await charge(req, res, messages);
      const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await loadSdk();
      // No retries here: the tools' REST calls are not counted again (the MCP request was), and any
      // other failure comes back to the agent as a tool error.
      const client = createApiClient({
        baseUrl: loopbackUrl(req),
        token: tokenOf(req),
        maxRetries: 0,
        userAgent: 'content-pipeline-mcp/1',
        fetch: loopbackFetch,
      });
      // A batch's calls run MCP_MAX_CONCURRENT_CALLS at a time, and none starts after the budget.
      // The token's scopes, as the bearer check found them: only the tools it may call are listed.
      // No confirmation (elicitation) here: a stateless endpoint cannot receive the client's
      // answer, nor know its capabilities, within one POST; hosts read the annotations (`cpa mcp`
      // asks, over stdio).
      const server = createMcpServer({
        catalog: opts.catalog,
        client,
        version: opts.version,
        deadline: { at: now() + MCP_REQUEST_BUDGET_MS, now },
        scopes: async () => req.scopes ?? null,
      });
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
      .json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST.' },
        id: null,
      });
  });
}
