// The one error handler. Whatever failed (body parser, validator, auth, domain, database), the
// answer is the envelope with the right status, never HTML and never a stack trace.
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { AppError, badRequest, internalError, invalid, missing, validationFailed } from '../errors.js';
import type { RouteTable } from './route-table.js';

interface ValidatorIssue {
  path?: string;
  message?: string;
  /** `<ajv keyword>.openapi.validation` (`required.openapi.validation`). */
  errorCode?: string;
  params?: Record<string, unknown>;
}

/** The field as the service's own messages name it: `body.parts[0]`, `body.media[2].alt_text`. */
function fieldOf(path: string | undefined): string {
  if (!path) return 'request';
  return path
    .replace(/^[./]/, '')
    .replace(/\//g, '.')
    .replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

/**
 * `body.idempotency_key must NOT have fewer than 16 characters`: the field first, then the problem.
 * A missing field is named (`body.platform is required`), with the values it takes when the
 * description lists them (`choices`, the route's top-level body fields with an `enum`).
 */
function validatorMessage(issues: ValidatorIssue[] | undefined, fallback: string, choices: Record<string, string[]> = {}): string {
  if (!issues?.length) return fallback;
  return issues
    .slice(0, 5)
    .map((i) => {
      let field = fieldOf(i.path);
      const extra = i.params?.additionalProperty;
      if (typeof extra === 'string') field = `${field}.${extra}`;
      if (i.errorCode === 'required.openapi.validation') {
        // The validator names the missing field in the path (`/body/platform`).
        const missing = /^body\.([^.[]+)$/.exec(field)?.[1];
        const among = missing ? choices[missing] : undefined;
        return `${field} is required${among ? `; one of ${among.join(', ')}` : ''}`;
      }
      const message = (i.message ?? 'is invalid')
        .replace(/^(request\.)?(body|query|params|headers)\S*\s+/, '')
        .replace(/^must NOT have fewer than 1 characters$/, 'is empty')
        // A long pattern (the stream's event names, a platform's handle form) says nothing a reader can use: point at the description.
        .replace(/^must match pattern "[^]{80,}"$/, "is not of the form the operation's description gives");
      return `${field} ${message}`;
    })
    .join('; ');
}

/**
 * The query parameters among the issues whose value was written with a literal `+`: form encoding
 * (which Express applies to the query) reads it as a space, so `from=2026-12-26T00:00:00+01:00`
 * arrives as `…00:00:00 01:00`. The message says what to send instead.
 */
function plusHint(req: Request, issues: ValidatorIssue[] | undefined): string {
  const q = req.originalUrl.indexOf('?');
  if (q < 0 || !issues?.length) return '';
  const names = new Set(issues.map((i) => /^[./]?query[./]([^./[]+)/.exec(i.path ?? '')?.[1]).filter((n): n is string => Boolean(n)));
  const plussed = req.originalUrl
    .slice(q + 1)
    .split('&')
    .filter((pair) => pair.includes('+'))
    .map((pair) => pair.split('=')[0]!)
    .filter((name) => names.has(name));
  if (!plussed.length) return '';
  return ` (query.${plussed[0]}: a + written in a query string stands for a space; write it as %2B)`;
}

/** Whether a body the JSON parser refused is valid JSON after all (a top-level scalar, which strict mode refuses). */
function bareJson(raw: unknown): boolean {
  if (typeof raw !== 'string') return false;
  try {
    JSON.parse(raw);
    return true;
  } catch {
    return false;
  }
}

/** Maps any thrown value to an AppError. */
export function toAppError(err: unknown, req: Request, routes: RouteTable): AppError {
  if (err instanceof AppError) return err;
  const e = err as { type?: string; status?: number; statusCode?: number; errors?: ValidatorIssue[]; message?: string; name?: string; body?: unknown };
  // body-parser (strict: a bare string, number, true, false or null at the top is refused as a parse failure too)
  if (e.type === 'entity.parse.failed')
    return badRequest(
      bareJson(e.body) ? 'The request body must be a JSON object, not a bare string, number, true, false or null.' : 'The request body is not valid JSON.',
    );
  if (e.type === 'entity.too.large') return badRequest('The request body is larger than 1048576 bytes.', { status: 413 });
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return badRequest('Send the body as application/json in UTF-8.', { status: 415 });
  }
  const status = e.status ?? e.statusCode;
  // express-openapi-validator
  if (Array.isArray(e.errors) || e.name?.endsWith('Error')) {
    const malformed = status === 400 ? routes.matchRequest(req).malformed[0] : undefined;
    if (malformed)
      return validationFailed(`path.${malformed}`, 'is not valid percent-encoding: a % must start the escape of a UTF-8 byte (two hexadecimal digits).');
    if (status === 400) {
      const choices = routes.matchRequest(req).route?.bodyChoices;
      return invalid(validatorMessage(e.errors, e.message ?? 'The request failed validation.', choices) + plusHint(req, e.errors));
    }
    if (status === 415) {
      const route = routes.matchRequest(req).route;
      if (!route?.binaryBody) return badRequest('Send the body as application/json.', { status: 415 });
      const types = route.bodyTypes;
      const accepted = `${types.slice(0, -1).join(', ')}${types.length > 1 ? ' or ' : ''}${types[types.length - 1]}`;
      const sent = req.headers['content-type'];
      const problem = sent ? `Content-Type ${JSON.stringify(sent.slice(0, 100))} is not accepted here` : 'The request has no Content-Type';
      return badRequest(`${problem}. Send the file with its Content-Type, one of: ${accepted}.`, { status: 415 });
    }
    if (status === 413) return badRequest('The request body is larger than 1048576 bytes.', { status: 413 });
    if (status === 404) return notFoundRoute(req);
    if (status === 405) return methodNotAllowed(req, routes);
  }
  return internalError();
}

export function notFoundRoute(req: Request): AppError {
  return missing(`No route ${req.method} ${req.path}.`);
}

export function methodNotAllowed(req: Request, routes: RouteTable): AppError {
  // The methods the description documents for the path (HEAD is served for GET but not listed).
  const allow = routes.matchRequest(req).allowed;
  return badRequest(`${req.method} is not allowed on ${req.path}; use ${allow.join(', ')}.`, {
    status: 405,
    headers: { Allow: allow.join(', ') },
  });
}

/** After every route: 405 when the path exists with other methods, else 404. */
export function fallthrough(routes: RouteTable): RequestHandler {
  return (req, _res, next) => {
    const { allowed } = routes.matchRequest(req);
    next(allowed.length ? methodNotAllowed(req, routes) : notFoundRoute(req));
  };
}

export function errorHandler(routes: RouteTable): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err, req, routes);
    // An unhandled failure is an error with its stack; a documented 5xx the domain raised on
    // purpose (an upstream down, no provider configured) is a warning without one.
    if (!(err instanceof AppError) && appError.status >= 500) req.log?.error({ err }, 'request failed');
    else if (appError.status >= 500) req.log?.warn({ code: appError.code, message: appError.message }, 'request failed');
    else req.log?.debug({ code: appError.code, message: appError.message }, 'request refused');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    try {
      for (const [k, v] of Object.entries(appError.extras.headers ?? {})) res.setHeader(k, v);
      res.status(appError.status);
      // A response that failed its own validation must not be validated (and fail) again.
      if (appError.status >= 500) res.type('application/json').send(JSON.stringify(appError.envelope()));
      else res.json(appError.envelope());
    } catch (failure) {
      // The envelope itself was refused (the response validator found no schema for it): never
      // let Express's own handler answer with its HTML page.
      req.log?.error({ err: failure, refused: appError.status }, 'the error response failed; answering 500');
      sendRaw(res, internalError());
    }
  };
}

/** The envelope written past every hook on the response (the validator's `json`). */
export function sendRaw(res: Response, e: AppError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = e.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(e.envelope()));
}
