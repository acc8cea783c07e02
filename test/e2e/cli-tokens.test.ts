// `cpa tokens create|list|rotate|revoke` (issue 32): a named token with fewer scopes, its secret
// printed once, the list without secrets, rotation with an overlap, and revocation; the token
// works, within its scopes, until then.
// `cpa workspace get|set`: the approval gate, changed only with admin.
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

  it('tells a token what it is (cpa tokens current): a read-only token may ask, and sees its scopes, never its secret', async () => {
    const created = json<{ token: { id: string }; secret: string }>(await t.run(['tokens', 'create', '--name', 'curious', '--scope', 'read', '--json']));
    const me = await t.run(['--token', created.secret, 'tokens', 'current', '--json']);
    expectExit(me, 0);
    expect(json<{ id: string; kind: string; name: string; scopes: string[] }>(me)).toMatchObject({
      id: created.token.id,
      kind: 'agent',
      name: 'curious',
      scopes: ['read'],
    });
    expect(me.stdout).not.toContain(created.secret.slice(4));
  });

  it('rotates a token: the new secret printed once, the old one working for the overlap; a bad overlap is refused before any call', async () => {
    const created = json<{ token: { id: string }; secret: string }>(await t.run(['tokens', 'create', '--name', 'rotating', '--scope', 'read', '--json']));
    const rotated = await t.run(['tokens', 'rotate', created.token.id, '--overlap', '1h']);
    expectExit(rotated, 0);
    const secret = rotated.stdout.trim();
    expect(secret).toMatch(/^cpa_[0-9a-f]{64}$/);
    expect(rotated.stderr).toContain(`replaces ${created.token.id}`);
    expectExit(await t.run(['--token', secret, 'pipelines', 'list']), 0);
    expectExit(await t.run(['--token', created.secret, 'pipelines', 'list']), 0); // within the overlap

    const listed = json<{ data: Array<{ id: string; kind: string; expires_at: string | null }> }>(await t.run(['tokens', 'list', '--limit', '100', '--json']));
    const old = listed.data.find((x) => x.id === created.token.id)!;
    expect(old.kind).toBe('agent');
    expect(Math.abs(Date.parse(old.expires_at!) - (Date.now() + 3600_000))).toBeLessThan(120_000);

    // No overlap: the old one is 401 at once.
    const again = await t.run([
      'tokens',
      'rotate',
      json<{ token: { id: string } }>(await t.run(['tokens', 'create', '--name', 'now', '--scope', 'read', '--json'])).token.id,
      '--overlap',
      '0',
      '--json',
    ]);
    expectExit(again, 0);
    const { previous } = json<{ previous: { id: string; expires_at: string } }>(again);
    expect(Date.parse(previous.expires_at)).toBeLessThanOrEqual(Date.now());

    const bad = await t.run(['tokens', 'rotate', created.token.id, '--overlap', 'soon']);
    expectExit(bad, 2);
    expect(bad.stderr).toContain('--overlap');
  });
});

describe('cpa workspace', () => {
  it('shows the approval gate (on for a new workspace) and turns it off and on; a token without admin cannot', async () => {
    const got = await t.run(['workspace', 'get', '--json']);
    expectExit(got, 0);
    expect(json<{ approval_required: boolean }>(got).approval_required).toBe(true);
    const off = await t.run(['workspace', 'set', '--approval-required', 'false', '--json']);
    expectExit(off, 0);
    expect(json<{ approval_required: boolean }>(off).approval_required).toBe(false);
    const reader = json<{ secret: string }>(await t.run(['tokens', 'create', '--name', 'gate reader', '--scope', 'read', '--json'])).secret;
    const refused = await t.run(['--token', reader, 'workspace', 'set', '--approval-required', 'true']);
    expectExit(refused, 8);
    expect(refused.stderr).toContain("'admin'");
    expectExit(await t.run(['workspace', 'set', '--approval-required', 'true']), 0);
    expect(json<{ approval_required: boolean }>(await t.run(['workspace', 'get', '--json'])).approval_required).toBe(true);
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
    expect(lines[0]).toContain('first-launch token');
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
