// The routes of the runtime description, for the parts of the pipeline that run before the
// OpenAPI validator (authentication) and after it (404, 405 with Allow).
import { compilePathTemplate, deref } from '../../shared/openapi.js';

export interface RouteMatch {
  route: Route | undefined;
  /** the methods the path takes */
  allowed: string[];
  params: Record<string, string>;
  /** Path parameters whose %-escapes do not decode (kept as written in `params`). */
  malformed: string[];
}

export interface Route {
  method: string;
  template: string;
  regex: RegExp;
  /** names of the path parameters, in order */
  params: string[];
  operationId: string;
  /** true when the operation requires the bearer token */
  bearer: boolean;
  /** The scope a token needs to call the operation (its `x-required-scope`); `none` for the public ones. */
  requiredScope: string;
  /** the schema of the body has an `idempotency_key` (required, or optional as on fetch) */
  idempotent: boolean;
  /** the body is raw bytes (every media type's schema is `format: binary`): streamed to the handler, never parsed */
  binaryBody: boolean;
  /** The media types the request body may have, as the description lists them. */
  bodyTypes: string[];
  /** The query parameters whose schema is a number, an integer or a boolean, by name. */
  typedQuery: Record<string, 'integer' | 'number' | 'boolean'>;
  /** The body's top-level fields that take one of a list of values (an `enum`), with the values: named when the field is missing. */
  bodyChoices: Record<string, string[]>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

type Operation = {
  operationId: string;
  security?: Array<Record<string, unknown>>;
  'x-required-scope'?: string;
  parameters?: unknown[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
};
type Spec = {
  security?: Array<Record<string, unknown>>;
  paths: Record<string, Record<string, Operation> & { parameters?: unknown[] }>;
  components?: { schemas?: Record<string, unknown>; parameters?: Record<string, unknown> };
};

/** A schema or parameter with its `$ref`s followed. */
const resolve = (spec: Spec, node: unknown) => deref<Record<string, unknown> | undefined>(spec as never, node);

function typedQueryOf(spec: Spec, parameters: unknown[]): Route['typedQuery'] {
  const typed: Route['typedQuery'] = {};
  for (const raw of parameters) {
    const p = resolve(spec, raw);
    const type = resolve(spec, p?.schema)?.type;
    if (p?.in === 'query' && (type === 'integer' || type === 'number' || type === 'boolean')) typed[p.name as string] = type;
  }
  return typed;
}

function choicesOf(spec: Spec, props: Record<string, unknown>): Route['bodyChoices'] {
  const choices: Route['bodyChoices'] = {};
  for (const [name, raw] of Object.entries(props)) {
    const values = resolve(spec, raw)?.enum;
    if (Array.isArray(values) && values.every((v) => typeof v === 'string')) choices[name] = values;
  }
  return choices;
}

export class RouteTable {
  readonly routes: Route[] = [];

  constructor(spec: Spec) {
    for (const [template, item] of Object.entries(spec.paths)) {
      const { regex, params } = compilePathTemplate(template);
      for (const method of METHODS) {
        const op = item[method] as Operation | undefined;
        if (!op) continue;
        const security = op.security ?? spec.security ?? [];
        const contents = Object.values(op.requestBody?.content ?? {});
        const binaryBody = contents.length > 0 && contents.every((c) => (resolve(spec, c.schema) as { format?: string } | undefined)?.format === 'binary');
        const schema = binaryBody ? undefined : resolve(spec, op.requestBody?.content?.['application/json']?.schema);
        const props = (schema?.properties ?? {}) as Record<string, unknown>;
        this.routes.push({
          method: method.toUpperCase(),
          template,
          regex,
          params,
          operationId: op.operationId,
          bearer: security.some((s) => 'bearerAuth' in s),
          requiredScope: op['x-required-scope'] ?? 'admin',
          idempotent: 'idempotency_key' in props,
          binaryBody,
          bodyTypes: Object.keys(op.requestBody?.content ?? {}),
          typedQuery: typedQueryOf(spec, [...(item.parameters ?? []), ...(op.parameters ?? [])]),
          bodyChoices: choicesOf(spec, props),
        });
      }
    }
  }

  /**
   * The route for a path and method; `allowed` lists the methods the path takes. As in OpenAPI,
   * a concrete path wins over a templated one (`/pipelines/from-intent` is not `/pipelines/{id}`).
   */
  match(method: string, path: string): RouteMatch {
    const candidates = this.routes.filter((r) => r.regex.test(path));
    const fewest = Math.min(...candidates.map((r) => r.params.length));
    const onPath = candidates.filter((r) => r.params.length === fewest);
    const m = method === 'HEAD' ? 'GET' : method;
    const route = onPath.find((r) => r.method === m);
    const params: Record<string, string> = {};
    const malformed: string[] = [];
    if (route) {
      const groups = route.regex.exec(path)!.slice(1);
      route.params.forEach((name, i) => {
        const decoded = safeDecode(groups[i]!);
        if (decoded === null) malformed.push(name);
        params[name] = decoded ?? groups[i]!;
      });
    }
    return { route, allowed: [...new Set(onPath.map((r) => r.method))], params, malformed };
  }

  /** `match` for a request, computed once and kept on it (auth, dispatch and 405 all ask). */
  matchRequest(req: { method: string; path: string; routeMatch?: RouteMatch }): RouteMatch {
    req.routeMatch ??= this.match(req.method, req.path);
    return req.routeMatch;
  }
}

/** The decoded segment, or null for a malformed %-escape (refused by validation, naming the parameter). */
function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
