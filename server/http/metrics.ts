// GET /metrics (outside the contract, like /docs: an operator's endpoint, not the agents' API) and
// the per-request observation behind its request counters. Not open to the world: with
// METRICS_TOKEN set, every caller sends it as a bearer token; without it, only callers on a
// loopback address are answered (a Prometheus on the same host, or behind a tunnel), and only when
// the request was not forwarded: a reverse proxy on the same host connects from loopback on behalf
// of anyone, so a request carrying a forwarding header is refused without the token.
import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import ipaddr from 'ipaddr.js';
import { forbidden, unauthorized } from '../errors.js';
import type { ServerMetrics } from '../services/metrics.js';
import { bearerToken } from './auth.js';
import type { RouteTable } from './route-table.js';

export const METRICS_PATH = '/metrics';

/** Whether `address` (a socket's remote address) is a loopback address, IPv4-mapped ones included. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

const sameSecret = (given: string, wanted: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(wanted);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The headers a reverse proxy adds to a request it forwards (RFC 7239 `Forwarded`, and the de facto ones). */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip', 'x-client-ip', 'true-client-ip', 'via'];

/** The first forwarding header a request carries, or null: it came through a proxy, whoever opened the connection. */
export function forwardedBy(headers: Record<string, unknown>): string | null {
  return FORWARDING_HEADERS.find((h) => headers[h] !== undefined) ?? null;
}

/** Answers GET /metrics to whoever may read it. */
export function metricsEndpoint(metrics: ServerMetrics, token: string | null): RequestHandler {
  return (req, res, next) => {
    if (token) {
      const given = bearerToken(req.headers.authorization);
      if (!given || !sameSecret(given, token)) return next(unauthorized('GET /metrics needs the METRICS_TOKEN of this instance as a bearer token.'));
    } else if (!isLoopbackAddress(req.socket.remoteAddress)) {
      return next(forbidden('GET /metrics answers loopback callers only; set METRICS_TOKEN on this instance to scrape it from elsewhere with that token.'));
    } else {
      const via = forwardedBy(req.headers);
      if (via)
        return next(
          forbidden(
            `GET /metrics answers only loopback callers that were not forwarded (this request carries ${via}, so a proxy may have brought it from anywhere); set METRICS_TOKEN on this instance to scrape it through a proxy with that token.`,
          ),
        );
    }
    metrics.registry.metrics().then((text) => {
      res.status(200).type(metrics.registry.contentType).send(text);
    }, next);
  };
}

/** Counts every answered request (by its contract operation) once it is sent; /metrics itself is not counted. */
export function observeRequests(metrics: ServerMetrics, routes: RouteTable): RequestHandler {
  return (req, res, next) => {
    if (req.path === METRICS_PATH) return next();
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const operation = routes.matchRequest(req).route?.operationId ?? (req.path === '/api/mcp' ? 'mcp' : 'unmatched');
      metrics.observeRequest(operation, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
