// Per-token rate limit: headers on every authenticated response, 429 past the quota.
import type { RequestHandler, Response } from 'express';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { RateDecision, SlidingWindowLimiter } from '../lib/sliding-window.js';

function setHeaders(res: Response, d: RateDecision) {
  res.setHeader('RateLimit-Limit', String(d.limit));
  res.setHeader('RateLimit-Remaining', String(d.remaining));
  res.setHeader('RateLimit-Reset', String(d.resetSeconds));
  res.setHeader('RateLimit-Policy', `"default";q=${d.limit};w=60`);
  res.setHeader('RateLimit', `"default";r=${d.remaining};t=${d.resetSeconds}`);
}

export function rateLimit(limiter: SlidingWindowLimiter, clock: Clock): RequestHandler {
  return (req, res, next) => {
    if (!req.caller) return next();
    const d = limiter.hit(req.caller.tokenId, clock.now().getTime());
    setHeaders(res, d);
    if (!d.allowed) {
      return next(
        new AppError(429, 'rate_limited', `Rate limit of ${d.limit} requests per minute exceeded; retry in ${d.resetSeconds} seconds.`, {
          headers: { 'Retry-After': String(d.resetSeconds) },
        }),
      );
    }
    next();
  };
}
