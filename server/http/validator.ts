// express-openapi-validator (request and response validation against the contract), with its route
// lookup taken from the route table instead of its own. Its lookup compiled a path-to-regexp for
// every route of the description on every request until one matched (openapi.metadata.js):
// 6.5 % of a GET /artifacts/{id}'s CPU in the issue 12 profile. Everything else is the library's:
// its request validator, its response validator (still on for every response), its ajv caches.
//
// The library's class is reached through its dist files (the package has no `exports` map, and
// 5.6.2 is pinned by the lockfile); `metadataMiddleware` is the one step replaced, and the two
// steps that do nothing here (path parameters for Express's own `:param` routes, of which the app
// has none, and security, which is off) are left out of the chain.
import { createRequire } from 'node:module';
import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { OpenApiValidator as Validator } from 'express-openapi-validator/dist/openapi.validator.js';
import { OpenApiSpecLoader } from 'express-openapi-validator/dist/framework/openapi.spec.loader.js';
import type { OpenApiContext } from 'express-openapi-validator/dist/framework/openapi.context.js';
import type { OpenApiValidatorOpts } from 'express-openapi-validator/dist/framework/types.js';
import { OpenAPIFramework } from 'express-openapi-validator/dist/framework/index.js';
import { SchemaPreprocessor } from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import { RequestParameterMutator } from 'express-openapi-validator/dist/middlewares/parsers/req.parameter.mutator.js';
import { pointer } from '../../shared/openapi.js';
import type { RouteTable } from './route-table.js';

type ApiDoc = { paths: Record<string, Record<string, unknown>> };

// The library's start-up walk over the description (SchemaPreprocessor) looks each `$ref` up with
// `ajv.getSchema(ref)`, which compiles a validator for the schema only to read back the schema it
// was given; those validators are thrown away with the walk's own Ajv. That was most of the
// server's start-up CPU (issue 27's profile: 1.7 s of ~4 s under load). The same object is read
// here by its JSON pointer into the description (what the library falls back to when Ajv has
// nothing); a reference the description does not hold still goes the library's way.
type Preprocessor = { apiDoc: Record<string, unknown>; resolvedSchemaCache: Map<string, unknown>; resolveSchema(schema: unknown): unknown };
const preprocessor = (SchemaPreprocessor as unknown as { prototype: Preprocessor }).prototype;
const libraryResolve = preprocessor.resolveSchema;
preprocessor.resolveSchema = function (this: Preprocessor, schema: unknown) {
  const ref = (schema as { $ref?: unknown } | null)?.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/') && !this.resolvedSchemaCache.has(ref)) {
    const found = pointer(this.apiDoc, ref);
    if (found !== undefined) this.resolvedSchemaCache.set(ref, found);
  }
  return libraryResolve.call(this, schema);
};

// The library hands the description to json-schema-ref-parser's `bundle` to gather external files
// into it; ours comes bundled already (generated/openapi.json: redocly bundle), every `$ref` a local
// `#/…` pointer, so that crawl changes nothing and was the next largest part of start-up (0.6 s of
// 4.8 s under load). A description with any other reference still goes through the parser.
type Framework = { loadSpec(spec: unknown, refParser?: { mode?: string }): Promise<unknown> };
const framework = (OpenAPIFramework as unknown as { prototype: Framework }).prototype;
const libraryLoad = framework.loadSpec;
framework.loadSpec = function (this: Framework, spec: unknown, refParser?: { mode?: string }) {
  if (spec && typeof spec === 'object' && (refParser?.mode ?? 'bundle') === 'bundle' && onlyLocalRefs(spec)) return Promise.resolve(spec);
  return libraryLoad.call(this, spec, refParser);
};

// And whatever `validateApiSpec` says, the library compiles the OpenAPI 3.1 meta-schema at start (in
// OpenAPISchemaValidator's constructor) only to not use it when validation is off, as here (the
// description is linted by redocly at build time): 0.5 s of start-up under load. Off means not built.
const schemaValidatorModule = createRequire(import.meta.url)('express-openapi-validator/dist/framework/openapi.schema.validator.js') as {
  OpenAPISchemaValidator: new (opts: { validateApiSpec?: boolean }) => { validate(doc: unknown): { errors: unknown[] } };
};
const LibrarySchemaValidator = schemaValidatorModule.OpenAPISchemaValidator;
schemaValidatorModule.OpenAPISchemaValidator = class {
  private readonly inner: InstanceType<typeof LibrarySchemaValidator> | null;
  constructor(opts: { validateApiSpec?: boolean }) {
    this.inner = opts.validateApiSpec ? new LibrarySchemaValidator(opts) : null;
  }
  validate(doc: unknown) {
    return this.inner ? this.inner.validate(doc) : { errors: [] };
  }
};

// A query value with a reserved character written as it is (`from=2026-12-26T00:00:00Z`,
// `destination=manual:x`) was refused by the library ("must be url encoded") unless its parameter
// says `allowReserved`; RFC 3986 allows them in a query, Express decodes the query before anything
// reads it, and a value written either way means the same. The parameters whose syntax holds
// reserved characters declare `allowReserved` (a hint to clients); for the others, a reserved
// character makes the value invalid anyway, and the schema's own check says what is expected
// ("query.limit must be integer") where this one said to encode what encoding cannot fix.
(RequestParameterMutator as unknown as { prototype: { validateReservedCharacters(): void } }).prototype.validateReservedCharacters = () => {};

function onlyLocalRefs(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(onlyLocalRefs);
  if (!node || typeof node !== 'object') return true;
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' ? !(typeof v === 'string' && v.startsWith('#/')) : !onlyLocalRefs(v)) return false;
  }
  return true;
}
type Methods = { basePath: string; _openApiRoute: string; _expressRoute: string };

/** The steps of the library's chain that are no-ops for this app (see above). */
const SKIPPED = new Set(['pathParamsMiddleware', 'securityMiddleware']);

/** The library's class as this file uses it (`metadataMiddleware` is private in its typings). */
const Base = Validator as unknown as new (options: OpenApiValidatorOpts) => { installMiddleware(spec: Promise<unknown>): unknown[] };

class RoutedValidator extends Base {
  constructor(
    private readonly routes: RouteTable,
    options: OpenApiValidatorOpts,
  ) {
    super(options);
  }

  /** Replaces the library's `metadataMiddleware` (its `installMiddleware` calls it through `this`). */
  metadataMiddleware(context: OpenApiContext, responseApiDoc: ApiDoc | undefined): RequestHandler {
    // The description's template → the library's names for it, once.
    const byTemplate = new Map<string, { expressRoute: string; openApiRoute: string; pathKey: string }>();
    for (const m of Object.values(context.expressRouteMap) as Methods[]) {
      const pathKey = m._openApiRoute.substring(m.basePath.length);
      byTemplate.set(pathKey, { expressRoute: m._expressRoute, openApiRoute: m._openApiRoute, pathKey });
    }
    const apiDoc = context.apiDoc as unknown as ApiDoc;
    return (req, _res, next) => {
      const { route, params, malformed } = this.routes.matchRequest(req);
      const names = route ? byTemplate.get(route.template) : undefined;
      const method = req.method.toLowerCase();
      const schema = names ? apiDoc.paths[names.pathKey]?.[method] : undefined;
      // Not a route of the description (the validator runs only on them), or not this method: as
      // the library does with ignoreUndocumented, nothing to validate.
      if (!route || !names || !schema) return next();
      if (malformed.length) return next(new OpenApiValidator.error.BadRequest({ path: req.path, message: "malformed uri'" }));
      const openapi: Record<string, unknown> = {
        expressRoute: names.expressRoute,
        openApiRoute: names.openApiRoute,
        pathParams: params,
        schema,
        serial: context.serial,
      };
      if (responseApiDoc) openapi._responseSchema = responseApiDoc.paths[names.pathKey]?.[method];
      (req as unknown as { openapi: unknown }).openapi = openapi;
      req.params = params;
      next();
    };
  }
}

/**
 * The validator's middlewares for the contract (`apiSpec`), matching requests with `routes`.
 * Options as express-openapi-validator's `middleware()`.
 */
export function contractValidator(routes: RouteTable, options: OpenApiValidatorOpts): RequestHandler[] {
  const v = new RoutedValidator(routes, options);
  // What the library's `middleware()` does (index.js), with our class.
  const spec = new OpenApiSpecLoader({
    apiDoc: structuredClone(options.apiSpec) as never,
    validateApiSpec: options.validateApiSpec ?? false,
    $refParser: options.$refParser,
  }).load();
  return (v.installMiddleware(spec) as RequestHandler[]).filter((mw) => !SKIPPED.has(mw.name));
}
