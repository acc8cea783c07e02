// Every named example in the contract is valid against its schema (requests, responses,
// parameters), checked here with Ajv's JSON Schema 2020-12 validator, independently of Redocly.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = ((formatsPlugin as unknown as { default?: typeof formatsPlugin }).default ?? formatsPlugin) as unknown as (ajv: Ajv2020) => void;

type Json = Record<string, unknown>;
const spec = JSON.parse(readFileSync('generated/openapi.json', 'utf8')) as Json;

function resolve(node: unknown): Json {
  let n = node as Json;
  while (n && typeof n.$ref === 'string') {
    n = (n.$ref as string)
      .slice(2)
      .split('/')
      .reduce<unknown>((acc, part) => (acc as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')], spec) as Json;
  }
  return n;
}

interface Sample {
  where: string;
  schema: Json;
  value: unknown;
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
  const operations: Array<[string, Json]> = [];
  for (const [path, item] of Object.entries(spec.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) operations.push([`${method.toUpperCase()} ${path}`, op as Json]);
  }
  for (const [name, item] of Object.entries((spec.webhooks ?? {}) as Json)) {
    for (const [method, op] of Object.entries(item as Json)) operations.push([`webhook ${name} ${method}`, op as Json]);
  }
  for (const [where, op] of operations) {
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

  it('exist for every operation', () => {
    expect(samples.length).toBeGreaterThan(40);
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
