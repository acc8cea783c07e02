// A platform is a folder (server/platforms/<name>/), listed in the registry (index.ts); its
// counting rules are also gathered, pure, in rules.ts, which the review desk bundles. They must be
// the same rules, in the same order, and the desk's bundle must not pull in any API client.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { platformOf, TARGET_PLATFORMS as REGISTERED } from '../../server/platforms/index.js';
import { countingOf, TARGET_PLATFORMS } from '../../server/platforms/rules.js';

describe('the platform registry', () => {
  it("counts with each folder's own rules, in the contract's order", () => {
    const contract = /enum: \[([^\]]+)\]/.exec(readFileSync('openapi/components/schemas/TargetPlatform.yaml', 'utf8'))![1]!.split(', ');
    expect(REGISTERED).toEqual(TARGET_PLATFORMS);
    expect(TARGET_PLATFORMS).toEqual(contract);
    for (const p of TARGET_PLATFORMS) expect(countingOf(p)).toBe(platformOf(p).counting);
  });

  it('keeps rules.ts free of anything but counting (the desk bundles it)', () => {
    const imports = [...readFileSync('server/platforms/rules.ts', 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports.every((i) => i === './counting.js' || /^\.\/[a-z]+\/counting\.js$/.test(i))).toBe(true);
  });
});
