// The composition root of the HTTP application: the request pipeline of DESIGN.md, in order.
// request-id → auth → rate limit → body → OpenAPI validation → idempotency → typed handler
// → OpenAPI response validation → JSON; every error ends in one handler.
import { randomBytes } from 'node:crypto';
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { AppError } from './errors.js';
import { bearerAuth } from './http/auth.js';
import { docsPage } from './http/docs.js';
import { errorHandler, fallthrough } from './http/errors.js';
import { rateLimit, rateLimiterFor } from './http/rate-limit.js';
import { RouteTable } from './http/route-table.js';
import { buildRouter } from './http/router.js';
import type { Handlers } from './http/typed.js';
import { verifySignedWebhooks } from './events/receiver.js';
import { buildToolCatalog } from './mcp/catalog.js';
import { mcpRouter } from './mcp/http.js';
import type { ServiceDeps } from './services/context.js';
import { docsFile, loadSpec } from './spec.js';

export interface AppParts {
  config: Config;
  deps: ServiceDeps;
  logger: Logger;
  handlers: Handlers;
  /** Answers 503 while true (set during shutdown). */
  isClosing?: () => boolean;
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

  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const id = `req_${randomBytes(16).toString('hex')}`;
        res.setHeader('X-Request-Id', id);
        return id;
      },
      // Never log the Authorization header or bodies.
      serializers: {
        req: (req: { method: string; url: string; id: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use((_req, _res, next) => {
    if (parts.isClosing?.()) return next(new AppError(503, 'backend_unavailable', 'The service is shutting down; retry shortly.', { headers: { 'Retry-After': '5', Connection: 'close' } }));
    next();
  });

  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(publicSpecJson);
  });
  app.get('/docs', docsPage(docsFile));

  app.use(bearerAuth(deps, routes));
  app.use(rateLimit(limiter, deps.clock));
  // MCP (outside the description): after auth and the rate limit, before the REST body parser.
  app.use('/api/mcp', mcpRouter({ catalog: buildToolCatalog(loadSpec('public')) }));
  // The signed receivers: signature headers checked before the body is read, the HMAC on the raw
  // bytes before they are parsed (server/events/receiver.ts); express.json then skips them.
  app.use(verifySignedWebhooks(config, deps.clock));
  const json = express.json({
    limit: '1mb',
    verify: (req, _res, buf) => {
      (req as express.Request).rawBody = buf;
    },
  });
  // Uploads (a `format: binary` body) stream to their handler untouched, whatever their size.
  app.use((req, res, next) => (routes.matchRequest(req).route?.binaryBody ? next() : json(req, res, next)));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: runtimeSpec as never,
      validateApiSpec: false,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, removeAdditional: false },
      validateResponses: config.validateResponses ? { removeAdditional: false } : false,
      validateSecurity: false,
      validateFormats: true,
      ignoreUndocumented: true,
    }),
  );
  app.use(buildRouter(routes, handlers, { db: deps.db, provider: deps.provider, clock: deps.clock }));
  app.use(fallthrough(routes));
  app.use(errorHandler(routes));
  return app;
}
