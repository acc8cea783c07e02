// `npm run generate` (after the bundles): generated/operations.ts, the facts of each operation that
// openapi-typescript's `operations` type does not carry, as types the server's handlers are checked
// against (server/http/typed.ts):
//   - which operations require the bearer token (their handlers get a `caller`; public ones none),
//   - each operation's tag (the first of its `tags`): one handler module serves one tag,
//   - the response headers a handler sets per operation and status, with their values and whether
//     the contract requires them (openapi-typescript types every header as required and leaves
//     `required: false` out), less the ones every answer gets from the pipeline (X-Request-Id,
//     RateLimit-*: server/app.ts, server/http/rate-limit.ts).
// Never edit the output by hand: `npm run lint` (check:generated) fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deref } from '../shared/openapi.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
type Json = Record<string, unknown>;
type Operation = { operationId: string; tags?: string[]; security?: Json[]; responses?: Json };
type Header = { name: string; required: boolean; type: string };
const spec = JSON.parse(readFileSync(path.join(root, 'generated/openapi.json'), 'utf8')) as Json & {
  security?: Json[];
  paths: Record<string, Record<string, Operation>>;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
/** Headers the request pipeline puts on every answer: never the handler's business. */
const PIPELINE_HEADERS = /^(X-Request-Id|RateLimit(-.*)?)$/;

const q = (s: string) => JSON.stringify(s);
const valueType = (schema: { enum?: unknown[] } | undefined) => (Array.isArray(schema?.enum) ? schema.enum.map((v) => q(String(v))).join(' | ') : 'string');

const ops: { id: string; bearer: boolean; tag: string; headers: Record<string, Header[]> }[] = [];
for (const [, item] of Object.entries(spec.paths)) {
  for (const method of METHODS) {
    const op = item[method];
    if (!op) continue;
    const security = op.security ?? spec.security ?? [];
    const headers: Record<string, Header[]> = {};
    for (const [status, raw] of Object.entries(op.responses ?? {})) {
      if (!/^2\d\d$/.test(status)) continue;
      const response = deref<{ headers?: Json }>(spec, raw);
      headers[status] = Object.entries(response.headers ?? {})
        .filter(([name]) => !PIPELINE_HEADERS.test(name))
        .map(([name, h]) => {
          const header = deref<{ required?: boolean; schema?: unknown }>(spec, h);
          return { name, required: header.required === true, type: valueType(deref(spec, header.schema)) };
        });
    }
    ops.push({ id: op.operationId, bearer: security.some((s) => 'bearerAuth' in s), tag: (op.tags ?? ['Untagged'])[0], headers });
  }
}
ops.sort((a, b) => a.id.localeCompare(b.id));

const union = (list: typeof ops) => (list.length ? list.map((o) => q(o.id)).join(' | ') : 'never');
const tags = [...new Set(ops.map((o) => o.tag))].sort();
const lines = [
  '// Made by scripts/generate-operations.ts from generated/openapi.json (`npm run generate`): never edit by hand.',
  '',
  '/** The operations that require the bearer token: their handlers receive the `caller`. */',
  `export type BearerOperation = ${union(ops.filter((o) => o.bearer))};`,
  '',
  '/** The operations without the bearer token (public, or authenticated by a signature). */',
  `export type PublicOperation = ${union(ops.filter((o) => !o.bearer))};`,
  '',
  '/** The operations of each tag (an operation counts under its first tag): one handler module each. */',
  'export interface OperationsByTag {',
  ...tags.map((t) => `  ${q(t)}: ${union(ops.filter((o) => o.tag === t))};`),
  '}',
  '',
  '/**',
  ' * The headers a handler sets on each 2xx answer, as the contract declares them (X-Request-Id and',
  ' * the RateLimit headers, which the pipeline sets on every answer, left out).',
  ' */',
  'export interface HandlerResponseHeaders {',
  ...ops.map((o) => {
    const statuses = Object.entries(o.headers).map(
      ([status, hs]) => `${status}: {${hs.map((h) => ` ${q(h.name)}${h.required ? '' : '?'}: ${h.type};`).join('')}${hs.length ? ' ' : ''}}`,
    );
    return `  ${o.id}: { ${statuses.join('; ')} };`;
  }),
  '}',
  '',
];
writeFileSync(path.join(root, 'generated/operations.ts'), lines.join('\n'));
