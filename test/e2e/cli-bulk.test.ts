// `cpa artifacts bulk`: approve and discard several artifacts in one request, one line each,
// exit 0 when all were done and 8 when one was refused; schedule's own usage errors.
import { describe, expect, it, vi } from 'vitest';
import { getArtifact } from '../support/api.js';
import { cliServer, expectExit, json } from './support.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const t = cliServer();

describe('cpa artifacts bulk', () => {
  it('approves several in one request, says which were refused and why, and exits 8 when one was', async () => {
    const a = await t.artifact('review');
    const b = await t.artifact('review');
    const ok = await t.run(['artifacts', 'bulk', 'approve', a.artifactId, b.artifactId, '--json']);
    expectExit(ok, 0);
    expect(json(ok)).toMatchObject({
      succeeded: 2,
      failed: 0,
      data: [
        { artifact_id: a.artifactId, state: 'ready' },
        { artifact_id: b.artifactId, state: 'ready' },
      ],
    });
    const again = await t.run(['artifacts', 'bulk', 'discard', a.artifactId, 'art_missing'], { CPA_FORCE_TTY: '1' });
    expectExit(again, 8);
    expect(again.stdout).toMatch(new RegExp(`${a.artifactId}.*200.*discarded`));
    expect(again.stdout).toMatch(/art_missing.*404.*not_found/);
    expect(again.stderr).toContain('1 done, 1 refused.');
    expect((await getArtifact(t.s, a.artifactId)).state).toBe('discarded');
    expect((await getArtifact(t.s, b.artifactId)).state).toBe('ready');
  });

  it('refuses a schedule without a whole number of minutes, or more than 100 ids, as a usage error (exit 2)', async () => {
    const bad = await t.run(['artifacts', 'bulk', 'schedule', 'art_1', '--at', '2030-01-01T09:00:00Z', '--every', 'often']);
    expectExit(bad, 2);
    expect(bad.stderr).toContain('--every');
    const many = await t.run(['artifacts', 'bulk', 'approve', ...Array.from({ length: 101 }, (_, i) => `art_${i}`)]);
    expectExit(many, 2);
    expect(many.stderr).toContain('At most 100');
  });

  it('lists an artifact’s children with `cpa artifacts children`', async () => {
    const a = await t.artifact('review');
    const none = await t.run(['artifacts', 'children', a.artifactId, '--json']);
    expectExit(none, 0);
    expect(json(none)).toEqual({ data: [], next_cursor: null });
    expectExit(await t.run(['artifacts', 'children', 'art_missing']), 7);
  });
});
