// The routes of the runtime description, for the parts of the pipeline that run before the
// OpenAPI validator (authentication) and after it (404, 405 with Allow).
export interface Route {
  method: string;
  template: string;
  regex: RegExp;
  operationId: string;
  /** true when the operation requires the bearer token */
  bearer: boolean;
  /** the schema of the body has an `idempotency_key` */
  idempotent: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

type Spec = {
  security?: Array<Record<string, unknown>>;
  paths: Record<string, Record<string, { operationId: string; security?: Array<Record<string, unknown>>; requestBody?: { content?: Record<string, { schema?: unknown }> } }>>;
  components?: { schemas?: Record<string, unknown> };
};

function resolve(spec: Spec, schema: unknown): Record<string, unknown> | undefined {
  let s = schema as Record<string, unknown> | undefined;
  while (s && typeof s.$ref === 'string') {
    const name = (s.$ref as string).replace('#/components/schemas/', '');
    s = spec.components?.schemas?.[name] as Record<string, unknown> | undefined;
  }
  return s;
}

export class RouteTable {
  readonly routes: Route[] = [];

  constructor(spec: Spec) {
    for (const [template, item] of Object.entries(spec.paths)) {
      const regex = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)')}$`);
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const security = op.security ?? spec.security ?? [];
        const schema = resolve(spec, op.requestBody?.content?.['application/json']?.schema);
        const props = (schema?.properties ?? {}) as Record<string, unknown>;
        this.routes.push({
          method: method.toUpperCase(),
          template,
          regex,
          operationId: op.operationId,
          bearer: security.some((s) => 'bearerAuth' in s),
          idempotent: 'idempotency_key' in props,
        });
      }
    }
  }

  /** The route for a path and method; `allowed` lists the methods the path takes. */
  match(method: string, path: string): { route: Route | undefined; allowed: string[] } {
    const onPath = this.routes.filter((r) => r.regex.test(path));
    const m = method === 'HEAD' ? 'GET' : method;
    return { route: onPath.find((r) => r.method === m), allowed: [...new Set(onPath.map((r) => r.method))] };
  }

  /** Express-style path (`/a/:id`) for a template (`/a/{id}`). */
  static expressPath(template: string): string {
    return template.replace(/\{([^}]+)\}/g, ':$1');
  }
}
