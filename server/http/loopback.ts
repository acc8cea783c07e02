// Calls this process makes to its own REST API on a caller's behalf: the MCP server's tools run
// as REST requests over loopback with the caller's token, so that auth, scoping, validation and
// idempotency are the REST API's own. They carry a secret made at start and never sent anywhere
// else, by which the rate limit knows that the caller's MCP request was already counted: a tool
// call costs one request of the quota, not two.
import type { IncomingMessage } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';

export const LOOPBACK_HEADER = 'x-content-pipeline-loopback';
const secret = Buffer.from(randomBytes(32).toString('hex'));

/** Marks a request as a loopback call of this process. */
export function markLoopback(headers: Headers): void {
  headers.set(LOOPBACK_HEADER, secret.toString());
}

/** Whether `req` is a loopback call of this very process (constant-time comparison). */
export function isLoopbackCall(req: IncomingMessage): boolean {
  const v = req.headers[LOOPBACK_HEADER];
  if (typeof v !== 'string' || v.length !== secret.length) return false;
  return timingSafeEqual(Buffer.from(v), secret);
}
