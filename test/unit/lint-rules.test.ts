// The house rules of openapi/redocly.yaml fire: the real configuration lints a fixture that
// breaks each rule once (test/fixtures/lint/house-rules.yaml) beside operations that keep them
// all, and each rule reports exactly the operation (or the operation's own answer, a component
// named after it) that breaks it. The layout of openapi/ that no lint rule can see (file names,
// component files nothing references) is checked here too.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const redocly = path.join(root, 'node_modules/.bin/redocly');

interface Problem {
  ruleId: string;
  location: Array<{ pointer: string }>;
}

async function lint(file: string): Promise<Problem[]> {
  // redocly exits 1 when it finds problems; the report is on stdout either way.
  const run = await promisify(execFile)(redocly, ['lint', '--config', 'openapi/redocly.yaml', file, '--format=json'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((err: unknown) => ({ stdout: (err as { stdout?: string }).stdout ?? '' }));
  return (JSON.parse(run.stdout) as { problems: Problem[] }).problems;
}

describe('the house rules of the lint', () => {
  it('each report the operation that breaks it, and nothing else', { timeout: 60_000 }, async () => {
    const found = (await lint('test/fixtures/lint/house-rules.yaml'))
      .filter((p) => p.ruleId.startsWith('rule/'))
      .map((p) => `${p.ruleId} ${p.location[0]!.pointer}`)
      .sort();
    expect(found).toEqual(
      [
        'rule/auth-operation-declares-401-429-500 #/paths/~1missing-auth-answers/get/responses',
        'rule/secured-operation-declares-401-429-500 #/paths/~1explicitly-secured/get/responses',
        'rule/templated-path-declares-404 #/paths/~1missing-404~1{id}/delete/responses',
        'rule/auth-2xx-carries-rate-limit-headers #/components/responses/MissingRateLimitHeadersOk/headers',
        'rule/auth-2xx-carries-rate-limit-headers #/components/responses/MissingRequestIdNoContent/headers',
        'rule/secured-2xx-carries-rate-limit-headers #/components/responses/ExplicitlySecuredMissingRateLimitHeadersOk/headers',
        'rule/response-carries-request-id #/components/responses/MissingRequestIdNoContent/headers',
        // an error answer without headers, and a 2xx file written without its header block
        'rule/response-declares-headers #/components/responses/PublicAnswerWithoutHeadersBadRequest/headers',
        'rule/response-declares-headers #/components/responses/MissingHeadersOk/headers',
        'rule/request-body-has-example #/paths/~1missing-request-example/post/requestBody/content/application~1json',
        'rule/2xx-has-example #/components/responses/MissingResponseExampleOk/content/application~1json',
        'rule/response-is-a-component #/paths/~1inline-answer/get/responses/200',
      ].sort(),
    );
  });

  it('are all proven by the fixture (a rule added to openapi/redocly.yaml needs a broken case here)', async () => {
    const config = readFileSync(path.join(root, 'openapi/redocly.yaml'), 'utf8');
    const rules = [...config.matchAll(/^ {2}(rule\/[\w-]+):/gm)].map((m) => m[1]).sort();
    const fixture = readFileSync(path.join(root, 'test/unit/lint-rules.test.ts'), 'utf8');
    for (const rule of rules) expect(fixture, rule).toContain(`'${rule} #`);
    expect(rules.length).toBe(10);
  });
});

describe('the layout of openapi/', () => {
  const main = readFileSync(path.join(root, 'openapi/openapi.yaml'), 'utf8');
  const refs = [...main.matchAll(/^ {2}(\/\S*):\n {4}\$ref: paths\/(\S+)$/gm)].map((m) => ({ path: m[1]!, file: m[2]! }));

  it("names each path file after its path, parameters included (Redocly's style: artifacts_{id}_publish.yaml)", () => {
    expect(refs.length).toBeGreaterThan(20);
    // /api/agent/v1/artifacts/{id}/publish -> artifacts_{id}_publish.yaml; /api/stream -> stream.yaml
    for (const r of refs) expect(r.file, r.path).toBe(`${r.path.replace(/^\/api\/(agent\/v1\/)?/, '').replaceAll('/', '_')}.yaml`);
    // one file per path, and no file that no path uses
    expect(readdirSync(path.join(root, 'openapi/paths')).sort()).toEqual(refs.map((r) => r.file).sort());
  });

  it('has no component file that nothing references (the lint never sees a file no $ref reaches)', () => {
    const spec = JSON.parse(readFileSync(path.join(root, 'generated/openapi.json'), 'utf8')) as { components: Record<string, Record<string, unknown>> };
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    const unused: string[] = [];
    for (const kind of readdirSync(path.join(root, 'openapi/components'))) {
      for (const file of files(path.join(root, 'openapi/components', kind))) {
        if (!(path.basename(file, '.yaml') in (spec.components[kind] ?? {}))) unused.push(path.relative(root, file));
      }
    }
    expect(unused).toEqual([]);
  });
});
