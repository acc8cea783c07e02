// The composition root of the HTTP application: the request pipeline, in order:
// request-id → auth → rate limit → body → OpenAPI validation → idempotency → typed handler
// → OpenAPI response validation → JSON; every error ends in one handler.
import { randomBytes } from 'node:crypto';
import express from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { backendUnavailable } from './errors.js';
import { bearerAuth, requireScope } from './http/auth.js';
import { bodyDeadline } from './http/body-deadline.js';
import { docsPage } from './http/docs.js';
import { CALLBACK_PATH, oauthCallback } from './http/oauth-callback.js';
import { METRICS_PATH, metricsEndpoint, observeRequests } from './http/metrics.js';
import type { Tracing } from './http/tracing.js';
import { deskRoutes, deskSignInLimit } from './http/desk.js';
import { errorHandler, fallthrough } from './http/errors.js';
import { canonicalQuery, storableInput } from './http/input.js';
import { rateCharge, rateLimit, rateLimiterFor } from './http/rate-limit.js';
import { RouteTable } from './http/route-table.js';
import { buildRouter, inSequence, onContractRoutes } from './http/router.js';
import { contractValidator } from './http/validator.js';
import type { Handlers } from './http/typed.js';
import { verifySignedWebhooks } from './events/receiver.js';
import { buildToolCatalog } from '../clients/mcp/catalog.js';
import { isMcpPost, mountMcp } from './mcp/http.js';
import type { ServiceDeps } from './services/context.js';
import type { ServerMetrics } from './services/metrics.js';
import { deskDir, docsFile, loadSpec } from './spec.js';
import { requestContext } from './lib/safety-net.js';

export interface AppParts {
  config: Config;
  deps: ServiceDeps;
  logger: Logger;
  handlers: Handlers;
  /** Answers 503 while true (set during shutdown). */
  isClosing?: () => boolean;
  /** What GET /metrics serves and the requests are counted into (server/services/metrics.ts). */
  metrics: ServerMetrics;
  /** OpenTelemetry request spans, when an OTLP endpoint is configured (server/http/tracing.ts). */
  tracing?: Tracing | null;
}

const ID_BYTES = 16;
const POOL_IDS = 256;
let idPool = Buffer.alloc(0);
let idAt = 0;

/**
 * 16 random bytes in hex for a request id, drawn from a pool filled 256 ids at a time: one
 * `randomBytes` call per request was 2.7 % of a read's CPU (issue 12 profile). The bytes are as
 * random as before; only the system call is shared.
 */
function requestIdRandom(): string {
  if (idAt >= idPool.length) {
    idPool = randomBytes(ID_BYTES * POOL_IDS);
    idAt = 0;
  }
  idAt += ID_BYTES;
  return idPool.toString('hex', idAt - ID_BYTES, idAt);
}

export function createApp(parts: AppParts): express.Express {
  const { config, deps, logger, handlers } = parts;
  const runtimeSpec = loadSpec('runtime');
  const publicSpecJson = JSON.stringify(loadSpec('public'));
  const routes = new RouteTable(runtimeSpec as never);
  const limiter = rateLimiterFor(deps, logger);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Paths are spelled exactly as in the contract: `/Docs` and `/openapi.json/` are unknown routes.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // Express's last-resort handler (reached only if ours fails) then shows no stack trace.
  app.set('env', 'production');

  // Runs of middlewares are registered as one `inSequence` each: Express's router costs a layer
  // match, a parameter pass and a prefix trim per middleware and per request (issue 12 profile).
  const logging = pinoHttp({
    logger,
    genReqId: (req, res) => {
      const id = `req_${requestIdRandom()}`;
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // Never log the Authorization header or bodies.
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
  app.use(
    inSequence([
      logging,
      // The request's id for whatever it starts (lib/safety-net.ts logs it with an unhandled error).
      (req, _res, next) => requestContext.run({ reqId: req.id as string }, next),
      ...(parts.tracing ? [parts.tracing.middleware(routes)] : []),
      observeRequests(parts.metrics, routes),
      bodyDeadline(routes, config.requestBodySeconds),
      (_req, _res, next) => {
        if (parts.isClosing?.())
          return next(
            backendUnavailable('The service is shutting down; retry shortly.', { status: 503, headers: { 'Retry-After': '5', Connection: 'close' } }),
          );
        next();
      },
    ]),
  );

  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(publicSpecJson);
  });
  app.get('/docs', docsPage(docsFile));
  app.get(METRICS_PATH, metricsEndpoint(parts.metrics, config.metricsToken));
  // The review desk: `/` and `/desk/*`, static files, no token (the page signs in through the API).
  app.use(deskRoutes(deskDir));
  app.use(deskSignInLimit(deps.clock));
  // The OAuth callback (outside the description): the platform sends the browser here, without a token.
  app.get(CALLBACK_PATH, oauthCallback(deps));

  app.use(inSequence([bearerAuth(deps, routes), rateLimit(limiter, deps.clock, { chargedLater: isMcpPost }), requireScope(routes)]));
  // MCP (outside the description): after auth and the rate limit, before the REST body parser.
  mountMcp(app, { catalog: buildToolCatalog(loadSpec('public')), charge: rateCharge(limiter, deps.clock), clock: deps.clock });
  const json = express.json({
    limit: '1mb',
    verify: (req, _res, buf) => {
      (req as express.Request).rawBody = buf;
    },
  });
  // The body parser and the validator see only the contract's routes: any other spelling of a
  // path goes on, unread, to the 404 (the validator's own matching ignores case and a trailing
  // slash, and would validate the answer of a route the contract does not have).
  const validator = contractValidator(routes, {
    apiSpec: runtimeSpec as never,
    validateApiSpec: false,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, removeAdditional: false },
    validateResponses: config.validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    validateFormats: true,
    ignoreUndocumented: true,
  });
  app.use(
    inSequence([
      // The signed receivers: signature headers checked before the body is read, the HMAC on the raw
      // bytes before they are parsed (server/events/receiver.ts); express.json then skips them.
      verifySignedWebhooks(config, deps.clock),
      onContractRoutes(
        routes,
        // Uploads (a `format: binary` body) stream to their handler untouched, whatever their size.
        (req, res, next) => (routes.matchRequest(req).route?.binaryBody ? next() : json(req, res, next)),
      ),
      canonicalQuery(routes),
      onContractRoutes(routes, validator),
      storableInput(routes),
      buildRouter(routes, handlers, deps),
      fallthrough(routes),
    ]),
  );
  app.use(errorHandler(routes));
  return app;
}
