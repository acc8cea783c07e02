// Authentication of the two signed webhook receivers. Mounted in the request pipeline before the
// shared JSON body parser and the OpenAPI validator, so that, in this order:
//   1. an unset secret is 503 backend_unavailable;
//   2. a missing or malformed X-Service-Signature (t not a number, v1 absent or not 64 lowercase
//      hex) or a t more than 300 s from now is 401, before any byte of the body is read (the
//      answer carries `Connection: close`, so the body is never read at all);
//   3. a body that is not application/json (or is compressed) is 415, one over 1 MiB is 413;
//   4. the raw bytes are read and the HMAC compared in constant time: a mismatch is 401;
//   5. only a verified body is parsed as JSON (400 when it is not JSON, 422 when it is not an
//      object) and handed on to the OpenAPI validation (422) and the handler.
import express, { type RequestHandler } from 'express';
import type { Config } from '../config.js';
import { backendUnavailable, badRequest, unauthorized, validationFailed } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { checkTimestamp, parseSignatureHeader, signatureMatches } from './signature.js';

/** The receivers and the configuration name of each one's secret. */
export const RECEIVERS: Record<string, { secret: 'webhookSigningSecret' | 'scraperSigningSecret'; env: string }> = {
  '/api/webhooks/backend': { secret: 'webhookSigningSecret', env: 'WEBHOOK_SIGNING_SECRET' },
  '/api/webhooks/scraper-monitor': { secret: 'scraperSigningSecret', env: 'SERVICE_SCRAPER_SIGNING_SECRET' },
};

// Refusals before the body is read close the connection rather than drain an unread body.
const early = { headers: { Connection: 'close' } };
const refuse = (message: string) => unauthorized(message, early);

export function verifySignedWebhooks(config: Config, clock: Clock): RequestHandler {
  const readRaw = express.raw({ type: () => true, limit: '1mb', inflate: false });
  return (req, res, next) => {
    const receiver = req.method === 'POST' ? RECEIVERS[req.path] : undefined;
    if (!receiver) return next();
    const secret = config[receiver.secret];
    if (!secret) return next(backendUnavailable(`This receiver is not configured: ${receiver.env} is not set.`, { status: 503, ...early }));
    const parsed = parseSignatureHeader(req.headers['x-service-signature']);
    if (!parsed.ok) return next(refuse(parsed.message));
    const fresh = checkTimestamp(parsed.header, clock.now().getTime());
    if (!fresh.ok) return next(refuse(fresh.message));
    if (!req.is('application/json')) return next(badRequest('Send the body as application/json.', { status: 415, ...early }));
    readRaw(req, res, (err?: unknown) => {
      if (err) return next(err);
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      req.rawBody = raw;
      // The path with the query exactly as the request line gave it: what the sender signed.
      if (!signatureMatches(secret, parsed.header, req.originalUrl, raw)) {
        req.body = undefined;
        return next(refuse('The signature does not match the request.'));
      }
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        req.body = undefined;
        return next(badRequest('The request body is not valid JSON.'));
      }
      // JSON that is not an object (null, a list, a number) cannot be an event; refused here
      // because the validator's discriminator lookup does not expect it.
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        req.body = undefined;
        return next(validationFailed('body', 'must be an event object (id, type, created_at, data).'));
      }
      req.body = body;
      next();
    });
  };
}
