// Every operation of the runtime description declares the scope a token needs to call it
// (`x-required-scope`, read by the bearer check through the route table): contract first, and an
// operation added without one is named here. Undeclared, the route table asks for `admin`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../server/services/tokens.js';
import { RouteTable } from '../../server/http/route-table.js';

const spec = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe('x-required-scope', () => {
  const ops: Array<{ where: string; scope: unknown; bearer: boolean }> = [];
  for (const [path, item] of Object.entries<Record<string, { operationId: string; security?: unknown[]; 'x-required-scope'?: unknown }>>(spec.paths)) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      const security = op.security ?? spec.security;
      ops.push({ where: `${op.operationId} (${m.toUpperCase()} ${path})`, scope: op['x-required-scope'], bearer: (security as unknown[]).length > 0 });
    }
  }

  it('is declared on every operation, as one of the scopes (or none for an operation without a token)', () => {
    const lacking = ops.filter((o) => o.scope === undefined).map((o) => o.where);
    expect(lacking, `add x-required-scope to these operations in openapi/paths/*: ${lacking.join(', ')}`).toEqual([]);
    const unknown = ops
      .filter((o) => o.scope !== undefined && o.scope !== 'none' && !SCOPES.includes(o.scope as never))
      .map((o) => `${o.where}: ${String(o.scope)}`);
    expect(unknown, `unknown scopes: ${unknown.join(', ')}`).toEqual([]);
    // An operation without a token needs no scope; `none` with a bearer token is an operation any
    // valid token may call (getCurrentToken: a token describing itself), and only that one.
    const mismatched = ops.filter((o) => !o.bearer && o.scope !== 'none').map((o) => o.where);
    expect(mismatched, `security: [] goes with x-required-scope: none: ${mismatched.join(', ')}`).toEqual([]);
    const anyToken = ops.filter((o) => o.bearer && o.scope === 'none').map((o) => o.where);
    expect(anyToken).toEqual(['getCurrentToken (GET /api/agent/v1/tokens/current)']);
  });

  it('is what the route table asks of a token', () => {
    const routes = new RouteTable(spec);
    expect(routes.routes.find((r) => r.operationId === 'publishArtifact')?.requiredScope).toBe('publish');
    expect(routes.routes.find((r) => r.operationId === 'createDeskSignInLink')?.requiredScope).toBe('admin');
    expect(routes.routes.find((r) => r.operationId === 'getPipeline')?.requiredScope).toBe('read');
  });
});
