// Reading the bundled OpenAPI description (generated/openapi.json, generated/openapi.public.json):
// the one `$ref` resolver and the one path-template compiler that the route table, the MCP tool
// catalog, the generator of generated/operations.ts and the tests use.

type Json = Record<string, unknown>;

/** The object a local `#/…` JSON pointer names (`~1` is `/`, `~0` is `~`). */
export function pointer(spec: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`Only local references are supported, got ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], spec);
}

/** A node with its `$ref`s followed (one level: the object itself, not what it contains); siblings of a `$ref` are dropped. */
export function deref<T = Json>(spec: Json, node: unknown): T {
  let n = node as Json | undefined;
  for (let hops = 0; n && typeof n.$ref === 'string'; hops++) {
    if (hops > 64) throw new Error(`Reference cycle at ${n.$ref}`);
    n = pointer(spec, n.$ref) as Json | undefined;
  }
  return n as T;
}

/**
 * A self-contained copy of a node: every `$ref` inlined, at every depth, with the siblings of a
 * `$ref` (a `description`, as OpenAPI 3.1 allows) kept over what it points to. `each`, when given,
 * rewrites every object before it is inlined.
 */
export function inline(spec: Json, node: unknown, each?: (node: Json) => Json, depth = 0): unknown {
  if (depth > 64) throw new Error('Schema nesting too deep (a reference cycle?)');
  if (Array.isArray(node)) return node.map((n) => inline(spec, n, each, depth + 1));
  if (!node || typeof node !== 'object') return node;
  const { $ref, ...rest } = each ? each(node as Json) : (node as Json);
  const out: Json = typeof $ref === 'string' ? { ...(inline(spec, pointer(spec, $ref), each, depth + 1) as Json) } : {};
  for (const [k, v] of Object.entries(rest)) out[k] = inline(spec, v, each, depth + 1);
  return out;
}

export interface PathTemplate {
  /** Matches a concrete path, one capture group per parameter. */
  regex: RegExp;
  /** The names of the parameters, in order. */
  params: string[];
}

/**
 * A path template (`/artifacts/{id}/variants/{platform}`) as a regular expression: the literal parts
 * escaped, each `{name}` one segment. `segment` is what a parameter may match (any segment unless given).
 */
export function compilePathTemplate(template: string, segment = '[^/]+'): PathTemplate {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, `(${segment})`);
  return { regex: new RegExp(`^${escaped}$`), params: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!) };
}
