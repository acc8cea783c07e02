// Registers one Express route per operation of the description and adapts the typed handler's
// `{ status, body, headers }` to the response. The registry is checked against the description
// at start: an operation without a handler, or a handler without an operation, stops the server.
import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { runIdempotent } from '../services/idempotency.js';
import type { ServiceDeps } from '../services/context.js';
import { auditFor } from './audit.js';
import type { Route, RouteTable } from './route-table.js';
import type { BinaryBody, Handler, HandlerRequest, Handlers, OpId, SseBody } from './typed.js';

function send(res: Response, reply: { status: number; body: unknown; headers?: Record<string, string> }) {
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  const body = reply.body as Partial<SseBody & BinaryBody> | undefined;
  if (body && typeof body.sse === 'function') {
    res.status(reply.status);
    body.sse(res.req, res);
    return;
  }
  if (body && Buffer.isBuffer(body.bytes)) {
    res.status(reply.status).setHeader('Content-Type', body.contentType ?? 'application/octet-stream');
    res.end(body.bytes);
    return;
  }
  res.status(reply.status).json(reply.body);
}

/**
 * Runs `handlers` only for a request on one of the contract's routes (as the route table matches
 * it: case-sensitive, no trailing slash); any other request skips them.
 */
export function onContractRoutes(routes: RouteTable, handlers: RequestHandler | RequestHandler[]): RequestHandler {
  const chain = inSequence(Array.isArray(handlers) ? handlers : [handlers]);
  return (req, res, next) => (routes.matchRequest(req).route ? chain(req, res, next) : next());
}

/**
 * Middlewares run one after the other, as `Router().use(list)` runs them for a path of `/`, without
 * the router's per-request work (its layer matching, parameter processing and path trimming were
 * ~5 % of a read's CPU in the issue 12 profile). An error (passed to `next`, thrown, or a rejected
 * promise, as Express 5 takes them) skips the rest; `next('route')` and `next('router')` leave the
 * sequence, like leaving a router.
 */
export function inSequence(list: RequestHandler[]): RequestHandler {
  return (req, res, done) => {
    const run: Run = { list, i: 0, req, res, done, step: undefined as unknown as NextFunction };
    // A bound function, not a closure: under tsx (how `npm start` runs), every named closure made
    // per request costs a `__name` call (esbuild's keepNames), which was ~3 % of a read's CPU.
    run.step = advance.bind(run) as NextFunction;
    run.step();
  };
}

/** The state of one request's pass through an `inSequence` list. */
interface Run {
  list: RequestHandler[];
  i: number;
  req: Request;
  res: Response;
  done: NextFunction;
  step: NextFunction;
}

function advance(this: Run, err?: unknown): void {
  const { done } = this;
  if (err === 'route' || err === 'router') return done();
  if (err) return done(err);
  const mw = this.list[this.i++];
  if (!mw) return done();
  try {
    const r = mw(this.req, this.res, this.step) as unknown;
    if (r instanceof Promise) r.catch((e: unknown) => done(e ?? new Error('a middleware rejected without a reason')));
  } catch (e) {
    done(e);
  }
}

export function buildRouter(routes: RouteTable, handlers: Handlers, deps: ServiceDeps): RequestHandler {
  const ops = new Set(routes.routes.map((r) => r.operationId));
  const missing = [...ops].filter((op) => !(op in handlers));
  const extra = Object.keys(handlers).filter((op) => !ops.has(op));
  if (missing.length || extra.length) {
    throw new Error(`Handlers do not match the description: missing ${missing.join(', ') || 'none'}; unknown ${extra.join(', ') || 'none'}`);
  }
  // One middleware matches with the route table (the same matching that auth and 405 use), so
  // that Express's own path matching cannot disagree with the description.
  return (req, res, next) => {
    const { route, params } = routes.matchRequest(req);
    if (!route) return next();
    const handler = handlers[route.operationId as OpId] as Handler<OpId>;
    dispatch(route, handler, deps, req, res, params).catch(next as NextFunction);
  };
}

async function dispatch(route: Route, handler: Handler<OpId>, deps: ServiceDeps, req: Request, res: Response, params: Record<string, string>) {
  const hreq = {
    operationId: route.operationId,
    path: params,
    query: { ...(req.query as object) },
    body: req.body as unknown,
    headers: req.headers,
    rawBody: req.rawBody,
    bodyStream: req,
    caller: req.caller,
    log: req.log,
  } as unknown as HandlerRequest<OpId>;

  if (route.bearer && !req.caller) throw new Error(`${route.operationId} requires the bearer token, but reached its handler without a caller`);
  // The record of who did what (http/audit.ts): written with the change when the service takes a
  // commit hook, else here after a successful answer and before it is sent; never for a replay.
  const audit = await auditFor(deps, route.operationId, req.caller, { path: params, body: req.body });
  if (audit) hreq.audit = audit.scope;
  const recorded = async (reply: { status: number; body: unknown; headers?: Record<string, string> }) => {
    if (audit && reply.status >= 200 && reply.status < 300 && reply.headers?.['Idempotent-Replayed'] !== 'true')
      await audit.after(reply.status, reply.body, req.log);
    return reply;
  };
  // A key is required where the body schema says so; where it is optional (fetch), a request
  // without one is simply not idempotent.
  const keyed = route.idempotent && typeof (req.body as { idempotency_key?: unknown } | undefined)?.idempotency_key === 'string';
  if (!keyed || !req.caller) {
    send(res, await recorded(await handler(hreq)));
    return;
  }
  // The idempotency rules are the service's; what is HTTP here is the header of a replayed answer.
  const body = req.body as Record<string, unknown>;
  const outcome = await runIdempotent(
    deps,
    { workspaceId: req.caller.workspaceId, operation: route.operationId, key: String(body.idempotency_key), pathParams: params, body },
    (scope) => handler({ ...hreq, idempotency: scope }),
  );
  if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
  else await recorded(outcome.reply);
  send(res, outcome.reply);
}
