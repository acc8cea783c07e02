// `cpa pipelines|artifacts|accounts|imports|runs list` and `cpa calendar`: one page or --all,
// --limit, the filters (--state comma-separated or repeated), --json fields, the usage errors,
// and the week view day by day in the time zone asked for.
import { describe, expect, it, vi } from 'vitest';
import { updateRows } from '../support/rows.js';
import { cliServer, expectExit, json } from './support.js';

vi.setConfig({ testTimeout: 60_000 });

const t = cliServer();

describe('cpa … list', () => {
  it('lists pipelines one page at a time, or every page with --all; --json keeps the fields asked for', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await t.newPipeline(undefined, `Lists intent ${i}`)).pipeline_id);
    const one = await t.run(['pipelines', 'list', '--limit', '2']);
    expectExit(one, 0);
    const lines = one.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.split('\t')[0]).toBe(made[2]); // newest first
    expect(one.stderr).toMatch(/More: cpa pipelines list --cursor \S+ {3}\(or --all\)/);
    const all = await t.run(['pipelines', 'list', '--limit', '2', '--all', '--json', 'id,handle']);
    expectExit(all, 0);
    const items = json<Array<{ id: string; handle: string }>>(all);
    expect(items.map((p) => p.id)).toEqual(expect.arrayContaining(made));
    expect(Object.keys(items[0]!)).toEqual(['id', 'handle']);
  });

  it('filters artifacts by state (comma-separated or repeated) and pipeline', async () => {
    const a = await t.artifact('review', { text: 'Für alle: 🚀 launch notes' });
    const b = await t.artifact('ready');
    await t.artifact('discarded');
    const both = json<Array<{ id: string; state: string }>>(await t.run(['artifacts', 'list', '--state', 'review,ready', '--all', '--json', 'id,state']));
    expect(both.map((x) => x.id)).toEqual(expect.arrayContaining([a.artifactId, b.artifactId]));
    expect(new Set(both.map((x) => x.state))).toEqual(new Set(['review', 'ready']));
    const repeated = json<Array<{ id: string }>>(await t.run(['artifacts', 'list', '--state', 'review', '--state', 'ready', '--all', '--json', 'id']));
    expect(repeated.map((x) => x.id).sort()).toEqual(both.map((x) => x.id).sort());
    const mine = await t.run(['artifacts', 'list', '--pipeline', a.pipelineId]);
    expectExit(mine, 0);
    expect(mine.stdout).toContain(a.artifactId);
    expect(mine.stdout).toContain('Für alle: 🚀 launch notes');
    expect(mine.stdout).not.toContain(b.artifactId);
  });

  it('refuses an unknown state, a bad --limit and a time without its offset (exit 2), before any call', async () => {
    for (const args of [
      ['artifacts', 'list', '--state', 'review,sent'],
      ['runs', 'list', '--kind', 'deploy'],
      ['pipelines', 'list', '--limit', '500'],
      ['artifacts', 'list', '--updated-since', '2027-12-01T09:30'],
    ]) {
      const r = await t.run(args);
      expectExit(r, 2);
    }
  });

  it('lists runs by kind and status, accounts with their health, and imports', async () => {
    const runs = json<Array<{ kind: string; status: string }>>(await t.run(['runs', 'list', '--kind', 'ingest', '--all', '--json', 'kind,status']));
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r) => r.kind === 'ingest')).toBe(true);
    expectExit(await t.run(['imports', 'upload', 'test/fixtures/archives/mastodon-outbox.json', '--handle', 'cli-lists-export']), 0);
    const accounts = json<Array<{ handle: string; status: string; last_probe_error: string | null }>>(
      await t.run(['accounts', 'list', '--json', 'handle,status,last_probe_error']),
    );
    expect(accounts).toEqual([{ handle: 'cli-lists-export', status: 'active', last_probe_error: null }]);
    const imports = await t.run(['imports', 'list']);
    expectExit(imports, 0);
    expect(imports.stdout).toMatch(/^imp_\w+\tcli-lists-export\tmastodon file\tready\t\d+\t/);
  });
});

describe('cpa calendar', () => {
  it('shows a week day by day in the time zone asked for, and the same items as tab-separated lines when piped', async () => {
    const a = await t.artifact('ready', { text: 'Wednesday morning post 🌅' });
    const b = await t.artifact('ready', { text: 'Sunday late post 🌙' });
    const at = (id: string, iso: string) => updateRows(t.s.running.deps.db, 'Artifact', { id }, { state: 'scheduled', scheduledAt: new Date(iso) });
    await at(a.artifactId, '2027-12-01T08:30:00.000Z'); // 09:30 in Paris
    await at(b.artifactId, '2027-12-05T22:30:00.000Z'); // 23:30 on Sunday in Paris, Monday in Tokyo
    const week = await t.run(['calendar', '--from', '2027-11-29', '--time-zone', 'Europe/Paris'], { CPA_FORCE_TTY: '1' });
    expectExit(week, 0);
    const text = week.stdout;
    expect(text).toContain('Mon 29 Nov');
    expect(text).toContain('Sun 5 Dec');
    const wed = text.slice(text.indexOf('Wed 1 Dec'), text.indexOf('Thu 2 Dec'));
    expect(wed).toContain(`09:30`);
    expect(wed).toContain(a.artifactId);
    const sun = text.slice(text.indexOf('Sun 5 Dec'));
    expect(sun).toContain(`23:30`);
    expect(sun).toContain(b.artifactId);
    expect(text.slice(text.indexOf('Mon 29 Nov'), text.indexOf('Tue 30 Nov'))).toContain('nothing scheduled');
    // In Tokyo the second one falls on Monday 6 December, outside that week.
    const tokyo = await t.run(['calendar', '--from', '2027-11-29', '--time-zone', 'Asia/Tokyo']);
    expectExit(tokyo, 0);
    expect(tokyo.stdout.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^2027-12-01\t17:30\t${a.artifactId}\t`))]);
    const asJson = json<{ from: string; to: string; data: Array<{ id: string }> }>(
      await t.run(['calendar', '--from', '2027-11-29', '--time-zone', 'Europe/Paris', '--json']),
    );
    expect([asJson.from, asJson.to]).toEqual(['2027-11-28T23:00:00Z', '2027-12-05T23:00:00Z']);
    expect(asJson.data.map((x) => x.id)).toEqual([a.artifactId, b.artifactId]);
  });

  it('refuses a bad --from, an unknown zone and --days out of 1..92 (exit 2)', async () => {
    for (const args of [
      ['calendar', '--from', '2027-02-30'],
      ['calendar', '--time-zone', 'Mars/Olympus_Mons'],
      ['calendar', '--days', '93'],
    ]) {
      expectExit(await t.run(args), 2);
    }
  });
});
