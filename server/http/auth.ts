// Bearer authentication for every operation whose security asks for it, before anything reads
// the body. Unknown routes under /api need a token too, so that probing learns nothing.
import type { RequestHandler } from 'express';
import { forbidden, unauthorized } from '../errors.js';
import { authenticate, hashToken, type Scope } from '../services/tokens.js';
import type { AuthResult, ServiceDeps } from '../services/context.js';
import type { RouteTable } from './route-table.js';

const MESSAGES = {
  missing: 'A valid bearer token is required: send Authorization: Bearer <agent-token>.',
  malformed: 'The bearer token is malformed: it must be 64 lowercase hexadecimal characters, or `cpa_` (a token) or `cps_` (a desk session) and 64 of them.',
  unknown: 'The bearer token is not valid.',
  revoked: 'The bearer token was revoked.',
  expired: 'The bearer token has expired (a review desk session: sign in again with a new link, `npx cpa desk`).',
  no_token_yet: 'No agent token has been created on this instance yet. On a team host run `npx cpa admin workspace create --name NAME`.',
} as const;

/**
 * `authenticate` with its successes remembered (services/token-cache.ts, this instance's
 * `deps.tokenCache`), by the token's digest. The lookup was one of the two queries of a read like
 * GET /artifacts/{id} (BENCHMARKS.md). A token that ends early is forgotten at once on every
 * instance (`forgetToken`, services/tokens.ts); an entry never outlives the token's expiry.
 * Failures are not remembered: a new token works at once, and guessing fills nothing.
 */
function cachedAuthenticate(deps: ServiceDeps): (token: string | null) => Promise<AuthResult> {
  return async (token) => {
    if (!token) return authenticate(deps, token);
    const key = hashToken(token);
    const now = deps.clock.now().getTime();
    const hit = deps.tokenCache.get(key, now);
    if (hit) return hit;
    const mark = deps.tokenCache.mark;
    const result = await authenticate(deps, token);
    if (result.ok) deps.tokenCache.set(key, result, now, mark);
    return result;
  };
}

/**
 * Whether an unknown path is under /api in any spelling (`/API/…`, `//api/…`, `/%61pi/…`): it is
 * a 404 only after the token, like every unknown route there, so that probing learns nothing.
 */
function underApi(path: string): boolean {
  let p = path;
  try {
    p = decodeURIComponent(p);
  } catch {
    // a malformed escape: judge the path as written
  }
  p = p.replace(/[\\/]+/g, '/').toLowerCase();
  return p === '/api' || p.startsWith('/api/');
}

/**
 * The token of an `Authorization: Bearer <token>` header: null without the header, '' when it is
 * not a bearer credential (refused as malformed). The one parser of the header.
 */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  return /^Bearer[ ]+(\S+)\s*$/i.exec(header)?.[1] ?? '';
}

export function bearerAuth(deps: ServiceDeps, routes: RouteTable): RequestHandler {
  const check = cachedAuthenticate(deps);
  return async (req, _res, next) => {
    const { route, allowed } = routes.matchRequest(req);
    const needsToken = route ? route.bearer : allowed.length > 0 ? routes.routes.some((r) => r.regex.test(req.path) && r.bearer) : underApi(req.path);
    if (!needsToken) return next();
    try {
      const result = await check(bearerToken(req.headers.authorization));
      if (!result.ok) {
        return next(unauthorized(MESSAGES[result.reason], { headers: { 'WWW-Authenticate': 'Bearer realm="content-pipeline"' } }));
      }
      req.caller = result.caller;
      req.scopes = result.scopes;
      next();
    } catch (err) {
      next(err);
    }
  };
}

/**
 * The scope the operation asks of the token (`x-required-scope`), checked after the rate limit so
 * that the 403 carries the rate-limit headers the description promises on every authenticated
 * answer, and counts like any of them (the contract fuzzing's least-privilege pass found it
 * missing them). Nothing past this reads the body, validates or runs a handler.
 */
export function requireScope(routes: RouteTable): RequestHandler {
  return (req, _res, next) => {
    const route = routes.matchRequest(req).route;
    const scope = route?.requiredScope;
    if (!req.caller || !route || !scope || scope === 'none' || req.scopes?.includes(scope as Scope)) return next();
    next(
      forbidden(`This token lacks the scope '${scope}' that ${route.operationId} requires; its scopes are: ${req.scopes?.join(', ') || 'none'}.`, {
        suggestedAction: 'request_scope',
      }),
    );
  };
}

declare module 'express-serve-static-core' {
  interface Request {
    caller?: import('../services/context.js').Caller;
    /** The scopes of the token that authenticated the request. */
    scopes?: import('../services/tokens.js').Scope[];
    rawBody?: Buffer;
    routeMatch?: import('./route-table.js').RouteMatch;
  }
}
