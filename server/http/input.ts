// Input the contract's schemas let through but the service cannot take as written, refused at
// the edge as 422 validation_failed naming the parameter or field, the same on every database:
// - numbers and booleans in the query string have one spelling each (`20`, `true`): the
//   validator would read `1e1`, `05`, ` 5` or `0x10` as numbers, and the handlers after it too;
// - strings that no database can store: NUL (PostgreSQL refuses it in text) and unpaired UTF-16
//   surrogates (neither UTF-8 database can encode them), anywhere in the body (values and
//   property names), in path parameters and in query parameters.
import type { RequestHandler } from 'express';
import { validationFailed } from '../errors.js';
import type { Route, RouteTable } from './route-table.js';

const INTEGER = /^-?(0|[1-9][0-9]*)$/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

function spellingProblem(type: Route['typedQuery'][string], v: string): string | null {
  if (type === 'boolean') return v === 'true' || v === 'false' ? null : 'must be true or false.';
  const plain = type === 'integer' ? INTEGER : NUMBER;
  if (!plain.test(v)) {
    return `must be ${type === 'integer' ? 'an integer' : 'a number'} written in plain decimal digits (like 20): no sign '+', exponent, leading zero, space or hexadecimal.`;
  }
  return Number.isSafeInteger(Math.trunc(Number(v))) ? null : 'is too large.';
}

/** Before the OpenAPI validator: the one spelling of each typed query parameter. */
export function canonicalQuery(routes: RouteTable): RequestHandler {
  return (req, _res, next) => {
    const { route } = routes.matchRequest(req);
    if (!route) return next();
    for (const [name, type] of Object.entries(route.typedQuery)) {
      const v = (req.query as Record<string, unknown>)[name];
      if (typeof v !== 'string') continue; // absent, or repeated (the validator names it)
      const problem = spellingProblem(type, v);
      if (problem) return next(validationFailed(`query.${name}`, problem));
    }
    next();
  };
}

// eslint-disable-next-line no-control-regex -- U+0000 is what PostgreSQL's text cannot store
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const PROBLEM = 'must not contain a NUL character (U+0000) or an unpaired UTF-16 surrogate (U+D800 to U+DFFF): no database can store them.';

/** The path (`body.fields.title.selectors.0.selector`) of the first string no database can store, or null. */
export function firstUnstorable(value: unknown, path: string): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnstorable(value[i], `${path}.${i}`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (UNSTORABLE.test(k)) return path; // a property name: named by the object that holds it
      const found = firstUnstorable(v, `${path}.${k}`);
      if (found) return found;
    }
  }
  return null;
}

/** After the OpenAPI validator: no string the database cannot store reaches a handler. */
export function storableInput(routes: RouteTable): RequestHandler {
  return (req, _res, next) => {
    const { route, params } = routes.matchRequest(req);
    if (!route) return next();
    const found = firstUnstorable(params, 'path') ?? firstUnstorable(req.query, 'query') ?? (req.body === undefined ? null : firstUnstorable(req.body, 'body'));
    next(found ? validationFailed(found, PROBLEM) : undefined);
  };
}
