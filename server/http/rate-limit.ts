// Per-token rate limit: headers on every authenticated response, 429 past the quota.
import type { NextFunction, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { SharedWindowLimiter } from '../lib/rate-limit-shared.js';
import { SlidingWindowLimiter, type RateDecision, type RateLimiter } from '../lib/sliding-window.js';
import type { ServiceDeps } from '../services/context.js';
import { isLoopbackCall } from './loopback.js';

/**
 * The limiter for this instance (RATE_LIMIT_STORE): by default, on PostgreSQL (a team host,
 * possibly several instances behind a load balancer) the counts live in the database so that the
 * quota holds across instances; on SQLite (one desktop instance) they stay in memory, which
 * costs no I/O. A single PostgreSQL instance may choose memory too.
 */
export function rateLimiterFor(deps: Pick<ServiceDeps, 'db' | 'provider' | 'config'>, logger: Logger): RateLimiter {
  const limit = deps.config.rateLimitPerMinute;
  if (deps.config.rateLimitStore === 'database' && deps.provider === 'postgresql') {
    return new SharedWindowLimiter(deps.db, limit, (err) => logger.warn({ err }, 'sweeping old rate-limit windows failed; retrying in a minute'));
  }
  return new SlidingWindowLimiter(limit);
}

function setHeaders(res: Response, d: RateDecision) {
  res.setHeader('RateLimit-Limit', String(d.limit));
  res.setHeader('RateLimit-Remaining', String(d.remaining));
  res.setHeader('RateLimit-Reset', String(d.resetSeconds));
  res.setHeader('RateLimit-Policy', `"default";q=${d.limit};w=60`);
  res.setHeader('RateLimit', `"default";r=${d.remaining};t=${d.resetSeconds}`);
}

function apply(res: Response, next: NextFunction, d: RateDecision) {
  setHeaders(res, d);
  if (d.allowed) return next();
  next(
    new AppError(429, 'rate_limited', `Rate limit of ${d.limit} requests per minute exceeded; retry in ${d.resetSeconds} seconds.`, {
      headers: { 'Retry-After': String(d.resetSeconds) },
    }),
  );
}

export function rateLimit(limiter: RateLimiter, clock: Clock): RequestHandler {
  return (req, res, next) => {
    if (!req.caller) return next();
    const key = req.caller.tokenId;
    const now = clock.now().getTime();
    // A tool call of the MCP server reaching the REST API: its MCP request was counted already.
    const d = isLoopbackCall(req) ? limiter.peek(key, now) : limiter.hit(key, now);
    // The in-memory limiter answers synchronously: no promise (and no extra tick) on that path.
    if (d instanceof Promise) d.then((v) => apply(res, next, v), next);
    else apply(res, next, d);
  };
}
