// The readiness example of the contract (what /docs shows) counts the migrations this version
// has, so that it cannot drift from them again (it said 6 when there were 9). The operations
// guide states no number (`"migrations":N`).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const migrations = (provider: string) =>
  readdirSync(path.join(root, 'prisma', provider, 'migrations'), { withFileTypes: true }).filter((d) => d.isDirectory()).length;

describe('the readiness example', () => {
  it('counts the migrations of both databases', () => {
    // the public description as /docs serves it (`npm run generate` bundles openapi/)
    const spec = JSON.parse(readFileSync(path.join(root, 'generated/openapi.public.json'), 'utf8')) as {
      components: { responses: Record<string, { content: { 'application/json': { examples: { ready: { value: { migrations: number } } } } } }> };
    };
    const example = spec.components.responses.GetReadinessOk!.content['application/json'].examples.ready.value.migrations;
    expect(migrations('postgresql')).toBe(migrations('sqlite'));
    expect(example, 'update the example in openapi/components/responses/GetReadinessOk.yaml').toBe(migrations('sqlite'));
  });
});
