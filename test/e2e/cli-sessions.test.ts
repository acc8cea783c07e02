// `cpa` commands for a pipeline's health (diagnose, inbox) and the session bridges, end to end.
import { describe, expect, it, vi } from 'vitest';
import { cliServer, expectExit, json } from './support.js';
import { unique } from '../support/api.js';

// Subprocesses: generous limits for a loaded machine (each call takes well under a second when idle).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const t = cliServer();
const run = t.run;

describe('diagnose and inbox', () => {
  it('reports issues with their suggested action, and lists what needs attention', async () => {
    // a Mastodon handle with no connected account
    const { pipelineId: pipeline_id, artifactId } = await t.artifact('review', { handle: '@ada@mastodon.example' });
    const art = { id: artifactId };
    const [table, report, inbox, inboxJson] = await Promise.all([
      run(['diagnose', pipeline_id]),
      run(['pipelines', 'diagnose', pipeline_id, '--json']),
      run(['inbox', pipeline_id]),
      run(['pipelines', 'inbox', pipeline_id, '--json']),
    ]);
    expectExit(table, 0);
    expect(table.stderr).toMatch(new RegExp(`Pipeline ${pipeline_id}: unhealthy`));
    expect(table.stdout).toMatch(/no_account[\s\S]*connect_account/);
    expect(json(report)).toMatchObject({
      pipeline_id,
      status: 'unhealthy',
      issues: expect.arrayContaining([expect.objectContaining({ code: 'no_account', suggested_action: 'connect_account' })]),
    });
    expectExit(inbox, 0);
    expect(inbox.stdout).toMatch(new RegExp(`draft_in_review[\\s\\S]*${art.id}`));
    const items = json<{ data: Array<{ kind: string; artifact_id: string | null }> }>(inboxJson).data;
    expect(items).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'draft_in_review', artifact_id: art.id })]));
  });
});

describe('sessions', () => {
  it('adds items, regenerates a variant with --wait, refreshes a source, and shows the activity', async () => {
    const session = `ses_cli_${unique('review').replace('-', '_')}`;
    const { artifactId } = await t.artifact('review', { text: 'A variant to regenerate.' });
    const art = { id: artifactId };
    // the first item creates the session (concurrent first items race on PostgreSQL: reported)
    const note = await run(['sessions', 'add-item', session, '--note', 'Lead with the numbers.', '--json']);
    const [variant, source, both] = await Promise.all([
      run(['sessions', 'add-item', session, '--artifact', art.id, '--json']),
      run(['sessions', 'add-item', session, '--source', 'https://blog.example.com/releases', '--json']),
      run(['sessions', 'add-item', session, '--note', 'x', '--source', 'https://example.com/']),
    ]);
    expect(json(note)).toMatchObject({ session_id: session, kind: 'note', text: 'Lead with the numbers.' });
    const variantId = json<{ id: string }>(variant).id;
    const sourceId = json<{ source_id: string }>(source).source_id;
    expect(sourceId).toEqual(expect.any(String));
    expectExit(both, 2);

    const regenerated = await run(['sessions', 'regenerate', session, variantId, '--wait', '--json']);
    expectExit(regenerated, 0);
    expect(json(regenerated)).toMatchObject({ session_id: session, variant_id: variantId, round: 1, run: { status: 'succeeded' } });

    const refresh = json<{ source_id: string; run_id: string }>(await run(['sessions', 'refresh-source', sourceId, '--json']));
    expect(refresh).toMatchObject({ source_id: sourceId, run_id: expect.stringMatching(/^run_/) });

    const activity = await run(['sessions', 'activity', '--limit', '10', '--json']);
    const rows = json<{ data: Array<{ session_id: string; kind: string }> }>(activity).data.filter((r) => r.session_id === session);
    expect(rows.map((r) => r.kind)).toEqual(expect.arrayContaining(['item_added', 'variant_regenerated']));
  });
});
