// Per-token rate limit: headers on every authenticated response, 429 past the quota.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, rateLimited } from '../errors.js';
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

function refusal(d: RateDecision, cost: number): AppError {
  let message = `Rate limit of ${d.limit} requests per minute exceeded; retry in ${d.resetSeconds} seconds.`;
  if (cost > 1) {
    message =
      cost > d.limit
        ? `This request carries ${cost} messages and costs ${cost} requests, more than the whole quota of ${d.limit} per minute: split it into smaller batches.`
        : `This request carries ${cost} messages and costs ${cost} requests, more than is left of the quota of ${d.limit} per minute; retry in ${d.resetSeconds} seconds or send a smaller batch.`;
  }
  return rateLimited(message, d.resetSeconds);
}

function apply(res: Response, next: NextFunction, d: RateDecision, cost = 1) {
  setHeaders(res, d);
  if (d.allowed) return next();
  next(refusal(d, cost));
}

export interface RateLimitOptions {
  /**
   * Requests whose cost is known only once their body is read (an MCP batch: one request per
   * message). Before the body, they are refused only when not even one request is left, counting
   * nothing; the handler then counts their whole cost at once with `charge`.
   */
  chargedLater?: (req: Request) => boolean;
}

export function rateLimit(limiter: RateLimiter, clock: Clock, opts: RateLimitOptions = {}): RequestHandler {
  return (req, res, next) => {
    if (!req.caller) return next();
    const key = req.caller.tokenId;
    const now = clock.now().getTime();
    // A tool call of the MCP server reaching the REST API: its MCP message was counted already.
    let d;
    if (isLoopbackCall(req)) d = limiter.peek(key, now);
    else if (opts.chargedLater?.(req)) d = limiter.peek(key, now, 1);
    else d = limiter.hit(key, now);
    // The in-memory limiter answers synchronously: no promise (and no extra tick) on that path.
    if (d instanceof Promise) d.then((v) => apply(res, next, v), next);
    else apply(res, next, d);
  };
}

/** Counts `cost` requests of the caller's quota, all or none, for a request `chargedLater`; rejects with the 429 when they do not fit. */
export type Charge = (req: Request, res: Response, cost: number) => Promise<void>;

export function rateCharge(limiter: RateLimiter, clock: Clock): Charge {
  return async (req, res, cost) => {
    if (!req.caller) return;
    const d = await limiter.hit(req.caller.tokenId, clock.now().getTime(), cost);
    setHeaders(res, d);
    if (!d.allowed) throw refusal(d, cost);
  };
}
