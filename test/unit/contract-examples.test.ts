// Every operation has named examples (a request example when it has a body, a 2xx example), and
// every named example in the contract is valid against its schema (requests, responses,
// parameters), checked here with Ajv's JSON Schema 2020-12 validator, independently of Redocly.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { deref } from '../../shared/openapi.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = ((formatsPlugin as unknown as { default?: typeof formatsPlugin }).default ?? formatsPlugin) as unknown as (ajv: Ajv2020) => void;

type Json = Record<string, unknown>;
const spec = JSON.parse(readFileSync('generated/openapi.json', 'utf8')) as Json;

const resolve = (node: unknown): Json => deref(spec, node);

interface Sample {
  where: string;
  schema: Json;
  value: unknown;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/** Every operation of the description, its webhooks included. */
function operations(): Array<{ where: string; op: Json }> {
  const out: Array<{ where: string; op: Json }> = [];
  for (const [path, item] of Object.entries(spec.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) if (METHODS.has(method)) out.push({ where: `${method.toUpperCase()} ${path}`, op: op as Json });
  }
  for (const [name, item] of Object.entries((spec.webhooks ?? {}) as Json)) {
    for (const [method, op] of Object.entries(item as Json)) if (METHODS.has(method)) out.push({ where: `webhook ${name} ${method}`, op: op as Json });
  }
  return out;
}

function collect(): Sample[] {
  const out: Sample[] = [];
  const media = (where: string, content: Json | undefined) => {
    for (const [type, m] of Object.entries(content ?? {})) {
      const mt = m as Json;
      for (const [name, ex] of Object.entries((mt.examples ?? {}) as Json)) {
        out.push({ where: `${where} ${type} example ${name}`, schema: mt.schema as Json, value: resolve(ex).value });
      }
    }
  };
  for (const { where, op } of operations()) {
    if (op.requestBody) media(`${where} request`, resolve(op.requestBody).content as Json);
    for (const [status, r] of Object.entries((op.responses ?? {}) as Json)) media(`${where} ${status}`, resolve(r).content as Json);
    for (const p of (op.parameters ?? []) as Json[]) {
      const param = resolve(p);
      if ('example' in param) out.push({ where: `${where} parameter ${param.name as string}`, schema: param.schema as Json, value: param.example });
    }
  }
  return out;
}

describe('contract examples', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...spec, $id: 'spec' }, 'spec');
  const samples = collect();

  it.each(operations().map((o) => [o.where, o] as const))('%s has a named request example (with a body) and a named 2xx example', (_where, o) => {
    const missing: string[] = [];
    const body = o.op.requestBody ? resolve(o.op.requestBody) : undefined;
    for (const [type, m] of Object.entries((body?.content ?? {}) as Json)) {
      if (!Object.keys(((m as Json).examples ?? {}) as Json).length) missing.push(`request ${type}`);
    }
    const success = Object.entries((o.op.responses ?? {}) as Json).filter(([status]) => /^2\d\d$/.test(status));
    expect(success.length, 'a 2xx answer').toBeGreaterThan(0);
    let answered = 0;
    for (const [status, r] of success) {
      for (const [type, m] of Object.entries((resolve(r).content ?? {}) as Json)) {
        answered += 1;
        if (!Object.keys(((m as Json).examples ?? {}) as Json).length) missing.push(`${status} ${type}`);
      }
    }
    // An operation that answers only 204 has no body to show.
    if (!answered) expect(success.map(([status]) => status)).toEqual(['204']);
    expect(missing, 'media types without a named example').toEqual([]);
  });

  it.each(samples.map((s) => [s.where, s] as const))('%s is valid', (_where, s) => {
    const schema = JSON.parse(JSON.stringify(s.schema).replace(/"#\/components/g, '"spec#/components'));
    const validate = ajv.compile(schema);
    const ok = validate(s.value);
    expect(ok, JSON.stringify(validate.errors)).toBe(true);
  });

  it('would catch an invalid example', () => {
    const schema = JSON.parse(JSON.stringify(resolve({ $ref: '#/components/schemas/Artifact' })).replace(/"#\/components/g, '"spec#/components'));
    expect(ajv.validate(schema, { id: 'art_1' })).toBe(false);
  });
});
