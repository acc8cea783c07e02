// `cpa tokens create|list|revoke` (issue 32): a named token with fewer scopes, its secret printed
// once, the list without secrets, and revocation; the token works, within its scopes, until then.
import { describe, expect, it, vi } from 'vitest';
import { cliServer, expectExit, json } from './support.js';

vi.setConfig({ testTimeout: 60_000 });

const t = cliServer();

describe('cpa tokens', () => {
  it('creates a read-only token, lists it without its secret, and revokes it', async () => {
    const created = await t.run(['tokens', 'create', '--name', 'reader', '--scope', 'read', '--json']);
    expectExit(created, 0);
    const { token, secret } = json<{ token: { id: string; scopes: string[] }; secret: string }>(created);
    expect(secret).toMatch(/^cpa_[0-9a-f]{64}$/);
    expect(token.scopes).toEqual(['read']);

    const withIt = (args: string[]) => t.run(['--token', secret, ...args]);
    expectExit(await withIt(['pipelines', 'list']), 0);
    const refused = await withIt(['tokens', 'create', '--name', 'more', '--scope', 'read,admin']);
    expectExit(refused, 8); // forbidden: the scope the token lacks
    expect(refused.stderr).toContain("'admin'");

    const listed = await t.run(['tokens', 'list', '--limit', '100']);
    expectExit(listed, 0);
    expect(listed.stdout).toContain(token.id);
    expect(listed.stdout).toContain('reader');
    expect(listed.stdout).not.toContain(secret.slice(4));

    expectExit(await t.run(['tokens', 'revoke', token.id]), 0);
    const after = await withIt(['pipelines', 'list']);
    expectExit(after, 3); // unauthorized
    expect(after.stderr).toContain('revoked');
  });
});

describe('cpa audit list', () => {
  it('shows who made and revoked a token, filtered by subject, as a table and as JSON', async () => {
    const created = json<{ token: { id: string } }>(await t.run(['tokens', 'create', '--name', 'nightly agent 🌙', '--scope', 'read', '--json']));
    expectExit(await t.run(['tokens', 'revoke', created.token.id]), 0);
    const listed = await t.run(['audit', 'list', '--subject', created.token.id]);
    expectExit(listed, 0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('token.revoked');
    expect(lines[0]).toContain('default token');
    expect(lines[1]).toContain('token.created');
    expect(lines[1]).toContain('nightly agent 🌙');
    const asJson = json<{ data: Array<{ action: string; actor: { kind: string; name: string }; subject: { id: string } }> }>(
      await t.run(['audit', 'list', '--action', 'token.created', '--since', '2026-01-01', '--json']),
    );
    expect(asJson.data.some((e) => e.subject.id === created.token.id && e.actor.kind === 'agent')).toBe(true);
    expect(asJson.data.every((e) => e.action === 'token.created')).toBe(true);
    expectExit(await t.run(['audit', 'list', '--since', 'yesterday']), 2);
  });
});
