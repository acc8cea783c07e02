// The record of who did what covers every operation that changes something: each mutating
// operation of the runtime description (any method but GET) is either in AUDITED (the record it
// makes: server/http/audit.ts) or in NOT_AUDITED with why. A new operation added to the contract
// without either is named here, so the record cannot silently miss it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDITED, NOT_AUDITED } from '../../server/http/audit.js';
import { SYSTEM } from '../../server/services/audit.js';

const spec = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string }>>;
};

const byMethod = new Map<string, string>();
for (const item of Object.values(spec.paths)) for (const [method, op] of Object.entries(item)) if (op.operationId) byMethod.set(op.operationId, method);

describe('the record of who did what', () => {
  const mutating = [...byMethod].filter(([, m]) => m !== 'get').map(([op]) => op);

  it('has an audit action (or a stated reason for none) for every mutating operation of the description', () => {
    expect(mutating.length).toBeGreaterThan(20);
    const missing = mutating.filter((op) => !(op in AUDITED) && !(op in NOT_AUDITED));
    expect(missing, `map these operations in AUDITED or NOT_AUDITED (server/http/audit.ts): ${missing.join(', ')}`).toEqual([]);
  });

  it('names only mutating operations of the description, each in one table, each reason said', () => {
    const both = Object.keys(AUDITED).filter((op) => op in NOT_AUDITED);
    expect(both).toEqual([]);
    const unknown = [...Object.keys(AUDITED), ...Object.keys(NOT_AUDITED)].filter((op) => !mutating.includes(op));
    expect(unknown, `not a mutating operation of the description: ${unknown.join(', ')}`).toEqual([]);
    for (const [op, why] of Object.entries(NOT_AUDITED)) expect(why?.length ?? 0, op).toBeGreaterThan(20);
  });

  it('uses dotted action names, as the contract pattern has them', () => {
    const pattern = /^[a-z_]+(\.[a-z_]+)+$/;
    const fixed = Object.entries(AUDITED).flatMap(([op, rule]) => (typeof rule.action === 'string' ? [[op, rule.action]] : []));
    expect(fixed.length).toBeGreaterThan(10);
    for (const [op, action] of fixed) expect(action, op).toMatch(pattern);
    expect(SYSTEM.kind).toBe('system');
  });
});
