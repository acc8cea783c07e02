// The MCP tool catalog, derived from the OpenAPI description at run time so that the tools
// cannot drift from the REST API: one tool per bearer-authenticated operation that answers JSON
// or nothing (the Agent API, the session bridges, runs and fetch schemas; the SSE stream and the
// internal receivers are not tools). A tool's input is one object: the path and query parameters
// and the body's fields side by side, each with its schema and description from the description.

import { inline as inlineRefs } from '../../shared/openapi.js';

type Json = Record<string, unknown>;

export interface ToolDef {
  /** snake_case of the operationId (`getPipeline` → `get_pipeline`). */
  name: string;
  operationId: string;
  title: string;
  description: string;
  method: string;
  path: string;
  inputSchema: Json & { type: 'object' };
  outputSchema?: Json & { type: 'object' };
  /** Where each input field goes in the HTTP request. */
  locations: Record<string, 'path' | 'query' | 'header' | 'body'>;
  /** The body carries an `idempotency_key` (the client's middleware fills it in when the caller leaves it out). */
  idempotent: boolean;
  hasBody: boolean;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** The operation's `x-required-scope`: the tool is listed, and called, only for a token that holds it (`none`: any token). */
  requiredScope: string;
  /** A tool that does its own work instead of one REST call (`cpa mcp`'s upload of a local file). */
  run?: (args: Record<string, unknown>) => Promise<unknown>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export const toolName = (operationId: string) => operationId.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** OpenAPI's `example` as JSON Schema's `examples` (kept when the node has its own `examples`). */
function exampleAsExamples(node: Json): Json {
  const { example, ...rest } = node;
  return example !== undefined && rest.examples === undefined ? { ...rest, examples: [example] } : rest;
}

/** A self-contained copy of a schema: every `$ref` inlined (shared/openapi.ts), `example` turned into `examples`. */
const inline = (spec: Json, node: unknown): unknown => inlineRefs(spec, node, exampleAsExamples);

/** The keywords of a schema that apply to one JSON type only (they go with that type's branch). */
const TYPE_KEYWORDS: Record<string, string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format', 'contentEncoding', 'contentMediaType'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains'],
  object: ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties'],
};

/**
 * A schema in the form every MCP host reads: JSON Schema allows `type` to be a list
 * (`[string, 'null']`), which OpenAPI 3.1 uses for nullable fields, but several hosts (and the
 * MCP Inspector's portability check) only understand one type per schema. A list becomes an
 * `anyOf` of one branch per type, each with the keywords that apply to it; the rest (description,
 * examples, default) stays on the outer schema.
 */
export function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    // Under `properties` (and the like) the keys are field names, not keywords: recurse into each value.
    out[k] = k === 'properties' || k === 'patternProperties' || k === '$defs' ? mapValues(v, portable) : portable(v);
  }
  if (!Array.isArray(out.type)) return out;
  const types = out.type as string[];
  const moved = new Set(['type', 'enum', ...types.flatMap((t) => TYPE_KEYWORDS[t] ?? [])]);
  const branches = types.map((t) => {
    const branch: Json = { type: t };
    for (const key of TYPE_KEYWORDS[t] ?? []) if (key in out) branch[key] = out[key];
    // An enum that lists `null` besides a type's values goes with each branch, filtered to it.
    if (Array.isArray(out.enum)) branch.enum = (out.enum as unknown[]).filter((e) => jsonType(e) === t || (t === 'number' && jsonType(e) === 'integer'));
    return branch;
  });
  const rest = Object.fromEntries(Object.entries(out).filter(([k]) => !moved.has(k)));
  return { ...rest, anyOf: branches.filter((b) => !Array.isArray(b.enum) || (b.enum as unknown[]).length > 0) };
}

const mapValues = (v: unknown, f: (x: unknown) => unknown): unknown =>
  v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Json).map(([k, x]) => [k, f(x)])) : v;

/** The JSON Schema type of a JSON value (`integer` for whole numbers). */
function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/**
 * An output schema that accepts fields added later: within v1 the API grows additively, and an
 * agent host validating results must not reject a newer server's extra fields.
 */
function openEnded(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openEnded);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === 'additionalProperties' && v === false) continue;
    out[k] = openEnded(v);
  }
  return out;
}

const IDEMPOTENCY_NOTE =
  ' Optional in this tool: when omitted, a fresh key is generated for the call. Pass your own (a UUID) and reuse it when you retry, so that a retried call is never done twice.';

/**
 * The schema of the 2xx JSON answers (one of them when an operation has several, e.g. publish's
 * 200 artifact and 202 accepted run); `null` for an answer without a body; `undefined` for other
 * media (the SSE stream).
 */
function successSchema(spec: Json, op: Json): Json | null | undefined {
  const responses = (op.responses ?? {}) as Json;
  const codes = Object.keys(responses).filter((c) => /^2\d\d$/.test(c));
  if (!codes.length) return undefined;
  const schemas: Json[] = [];
  for (const code of codes) {
    const content = (inline(spec, responses[code]) as Json).content as Json | undefined;
    if (!content || !Object.keys(content).length) return null;
    const json = content['application/json'] as Json | undefined;
    if (!json) return undefined;
    schemas.push((json.schema as Json | undefined) ?? {});
  }
  if (schemas.length === 1) return schemas[0];
  return schemas.every((x) => x.type === 'object') ? { type: 'object', oneOf: schemas } : {};
}

/** True when every media type of the request body is raw bytes (`format: binary`). */
function binaryBody(op: Json): boolean {
  const contents = Object.values(((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>);
  return contents.length > 0 && contents.every((c) => (c.schema as Json | undefined)?.format === 'binary');
}

/** The path item's parameters, overridden by the operation's own of the same name and place. */
function parametersOf(spec: Json, item: Json, op: Json): Json[] {
  const byKey = new Map<string, Json>();
  for (const raw of [...((item.parameters ?? []) as Json[]), ...((op.parameters ?? []) as Json[])]) {
    const p = inline(spec, raw) as Json;
    byKey.set(`${p.in as string}:${p.name as string}`, p);
  }
  return [...byKey.values()];
}

/**
 * What a host may infer about a tool, from its operation: GET only reads (and is idempotent), and
 * so does an operation marked `x-read-only` (a POST that changes nothing on the service, e.g.
 * fetch); DELETE, PUT (it replaces what was stored), a body that can move something to
 * `discarded`, and an operation marked `x-destructive` (it replaces or deletes what was there,
 * or does what cannot be undone: publishing, rotating credentials) are destructive; only the
 * HTTP-idempotent methods are idempotent (a tool whose `idempotency_key` is generated when
 * omitted does the work again on every call); an operation marked `x-reaches-upstream` (a
 * platform, a web page or a model, itself or through the run it queues) is open-world.
 */
function annotationsOf(method: string, op: Json, body: Json | undefined, title: string): ToolDef['annotations'] {
  const readOnlyHint = method === 'get' || op['x-read-only'] === true;
  const enums = Object.values((body?.properties ?? {}) as Record<string, Json>).flatMap((s): unknown[] => (Array.isArray(s.enum) ? s.enum : []));
  return {
    title,
    readOnlyHint,
    destructiveHint: !readOnlyHint && (method === 'delete' || method === 'put' || enums.includes('discarded') || op['x-destructive'] === true),
    idempotentHint: readOnlyHint || method === 'put' || method === 'delete',
    openWorldHint: op['x-reaches-upstream'] === true,
  };
}

function buildTool(spec: Json, path: string, method: string, item: Json, op: Json): ToolDef | null {
  const security = (op.security ?? spec.security ?? []) as Json[];
  if (!security.some((s) => 'bearerAuth' in s) || op['x-internal']) return null;
  const output = successSchema(spec, op);
  if (output === undefined) return null; // not a JSON operation (the SSE stream)
  // An upload's body is a file's bytes, which a tool call's JSON arguments cannot carry; `cpa mcp`
  // offers it as a tool that reads a path on its own machine (`import_archive_from_path`,
  // `upload_media_from_path`).
  if (binaryBody(op)) return null;

  const properties: Json = {};
  const required: string[] = [];
  const locations: ToolDef['locations'] = {};
  const add = (name: string, schema: Json, where: ToolDef['locations'][string], isRequired: boolean) => {
    if (locations[name]) throw new Error(`${op.operationId as string}: "${name}" is both a ${locations[name]} and a ${where} field`);
    locations[name] = where;
    properties[name] = schema;
    if (isRequired) required.push(name);
  };
  for (const p of parametersOf(spec, item, op)) {
    const schema: Json = { ...(p.schema as Json) };
    if (p.description) schema.description = p.description;
    // `inline` turned the parameter's `example` into a JSON Schema `examples` list.
    if (Array.isArray(p.examples) && schema.examples === undefined) schema.examples = p.examples;
    add(p.name as string, schema, p.in as 'path' | 'query' | 'header', Boolean(p.required));
  }
  const bodySchema = inline(spec, ((op.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json']) as Json | undefined;
  const body = bodySchema?.schema as Json | undefined;
  let idempotent = false;
  for (const [name, schema] of Object.entries((body?.properties ?? {}) as Json)) {
    const s = schema as Json;
    if (name === 'idempotency_key') {
      idempotent = true;
      add(name, { ...s, description: `${(s.description as string | undefined)?.trim() ?? 'Idempotency key.'}${IDEMPOTENCY_NOTE}` }, 'body', false);
      continue;
    }
    add(name, s, 'body', ((body?.required ?? []) as string[]).includes(name));
  }

  const summary = String(op.summary ?? op.operationId);
  const annotations = annotationsOf(method, op, body, summary);
  const description = [
    `${summary}.`,
    (typeof op.description === 'string' ? op.description : '').trim(),
    `REST: ${method.toUpperCase()} ${path} (operation ${op.operationId as string}).`,
  ]
    .filter(Boolean)
    .join('\n\n');
  const outputSchema = output?.type === 'object' ? (openEnded(output) as ToolDef['outputSchema']) : undefined;
  return {
    name: toolName(op.operationId as string),
    operationId: op.operationId as string,
    title: summary,
    description,
    method: method.toUpperCase(),
    path,
    inputSchema: portable({ type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false }) as ToolDef['inputSchema'],
    ...(outputSchema ? { outputSchema: portable(outputSchema) as ToolDef['outputSchema'] } : {}),
    locations,
    idempotent,
    hasBody: Boolean(body),
    annotations,
    requiredScope: scopeOf(op),
  };
}

/** An operation's `x-required-scope`; undeclared, the server asks for `admin` (server/http/route-table.ts), and so does this. */
const scopeOf = (op: Json) => (typeof op['x-required-scope'] === 'string' ? op['x-required-scope'] : 'admin');

/**
 * What a tool that is not derived by `buildToolCatalog` (`cpa mcp`'s uploads from a local path)
 * takes from its operation: method, path, scope and annotations, by the same rules as every tool.
 */
export function operationFacts(spec: Json, operationId: string, title: string): Pick<ToolDef, 'method' | 'path' | 'requiredScope' | 'annotations'> {
  for (const [path, item] of Object.entries((spec.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op?.operationId !== operationId) continue;
      const body = (inline(spec, ((op.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json']) as Json | undefined)?.schema as
        | Json
        | undefined;
      return { method: method.toUpperCase(), path, requiredScope: scopeOf(op), annotations: annotationsOf(method, op, body, title) };
    }
  }
  throw new Error(`the description has no operation ${operationId}`);
}

/** Whether a token with `scopes` may call the tool; `null` scopes (not known) let every tool through, the REST API still deciding. */
export const toolAllowed = (tool: Pick<ToolDef, 'requiredScope'>, scopes: readonly string[] | null) =>
  scopes === null || tool.requiredScope === 'none' || scopes.includes(tool.requiredScope);

/** Every tool the description yields, in the description's order. */
export function buildToolCatalog(spec: Json): ToolDef[] {
  const tools: ToolDef[] = [];
  for (const [path, item] of Object.entries((spec.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const tool = buildTool(spec, path, method, item, op);
      if (tool) tools.push(tool);
    }
  }
  return tools;
}

/** Arguments a tool cannot take: an unknown name, or a path, query or header value of the wrong JSON type. The call is not made. */
export class ToolArgumentError extends Error {
  constructor(
    message: string,
    readonly argument: string,
  ) {
    super(message);
  }
}

/** True when `value` is of one of the schema's JSON types (and in its `enum`); a schema without a type takes anything. */
function matchesType(schema: Json, value: unknown): boolean {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).some((b) => matchesType(b, value));
  if (Array.isArray(schema.enum) && !(schema.enum as unknown[]).includes(value)) return false;
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const actual = jsonType(value);
  return types.length === 0 || types.includes(actual) || (actual === 'integer' && types.includes('number'));
}

const typeName = (schema: Json): string =>
  Array.isArray(schema.anyOf)
    ? (schema.anyOf as Json[]).map(typeName).join(' or ')
    : Array.isArray(schema.enum)
      ? `one of ${(schema.enum as unknown[]).map((e) => JSON.stringify(e)).join(', ')}`
      : String(schema.type);

/**
 * Checks a call's arguments before any request is made: every name must be one of the tool's
 * (a GET cannot carry the unknown ones in a body, and a wrong name on any tool is the caller's
 * mistake, not the server's); a path, query or header argument must be of its schema's type
 * (`{"id": 42}` would otherwise reach another URL). The body's fields are checked by the REST
 * validation, which names them the same way.
 */
export function checkArguments(tool: ToolDef, args: Record<string, unknown>): void {
  const known = Object.keys(tool.inputSchema.properties as Json);
  for (const [name, value] of Object.entries(args)) {
    if (!known.includes(name)) {
      const takes = known.length ? `it takes ${known.join(', ')}` : 'it takes none';
      throw new ToolArgumentError(`${name} is not an argument of ${tool.name} (${takes})`, name);
    }
    const where = tool.locations[name];
    if (where === 'body' || where === undefined || value === undefined) continue;
    const schema = (tool.inputSchema.properties as Record<string, Json>)[name]!;
    if (!matchesType(schema, value)) throw new ToolArgumentError(`${name} must be ${typeName(schema)}, not ${jsonType(value)} ${JSON.stringify(value)}`, name);
  }
  for (const name of (tool.inputSchema.required ?? []) as string[]) {
    if (args[name] === undefined && tool.locations[name] !== 'body') throw new ToolArgumentError(`${name} is required by ${tool.name}`, name);
  }
}

/**
 * Splits a tool's arguments into the parts of the HTTP request, after `checkArguments`. A
 * missing `idempotency_key` is left out: the typed client's idempotency middleware generates it.
 */
export function toRequest(tool: ToolDef, args: Record<string, unknown>) {
  checkArguments(tool, args);
  const params = { path: {} as Json, query: {} as Json, header: {} as Record<string, string> };
  const body: Json = {};
  for (const [name, value] of Object.entries(args)) {
    const where = tool.locations[name];
    if (!where || where === 'body') body[name] = value;
    else if (where === 'header') params.header[name] = String(value);
    else params[where][name] = value;
  }
  return { method: tool.method, path: tool.path, params, body: tool.hasBody || Object.keys(body).length ? body : undefined };
}
