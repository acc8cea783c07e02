// The house rules of openapi/redocly.yaml fire: the real configuration lints a fixture that
// breaks each rule once (test/fixtures/lint/house-rules.yaml) beside operations that keep them
// all, and each rule reports exactly the operation that breaks it.
import { execFile } from 'node:child_process';
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
  const run = await promisify(execFile)(redocly, ['lint', '--config', 'openapi/redocly.yaml', file, '--format=json'], { cwd: root, maxBuffer: 16 * 1024 * 1024 }).catch(
    (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
  );
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
        'rule/auth-2xx-carries-rate-limit-headers #/paths/~1missing-rate-limit-headers/get/responses/200/headers',
        'rule/auth-2xx-carries-rate-limit-headers #/paths/~1missing-request-id/get/responses/204/headers',
        'rule/secured-2xx-carries-rate-limit-headers #/paths/~1explicitly-secured-missing-rate-limit-headers/get/responses/200/headers',
        'rule/response-carries-request-id #/paths/~1missing-request-id/get/responses/204/headers',
        'rule/response-declares-headers #/paths/~1public-missing-headers/get/responses/400/headers',
        'rule/request-body-has-example #/paths/~1missing-request-example/post/requestBody/content/application~1json',
        'rule/2xx-has-example #/paths/~1missing-response-example/get/responses/200/content/application~1json',
      ].sort(),
    );
  });

  it('are all proven by the fixture (a rule added to openapi/redocly.yaml needs a broken case here)', async () => {
    const { readFileSync } = await import('node:fs');
    const config = readFileSync(path.join(root, 'openapi/redocly.yaml'), 'utf8');
    const rules = [...config.matchAll(/^ {2}(rule\/[\w-]+):/gm)].map((m) => m[1]).sort();
    const fixture = readFileSync(path.join(root, 'test/unit/lint-rules.test.ts'), 'utf8');
    for (const rule of rules) expect(fixture, rule).toContain(`'${rule} #`);
    expect(rules.length).toBe(9);
  });
});
