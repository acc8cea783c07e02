// `cpa` commands for pipelines, posts, artifacts and runs, end to end: output as tables and JSON,
// generated and given idempotency keys, `--all` pagination, and following runs with `wait`.
import { describe, expect, it, vi } from 'vitest';
import { seedArtifact } from '../support/seed.js';
import { cliServer, cpa, expectExit, json } from './support.js';
import { insertRow, updateRows } from '../support/rows.js';
import { unique, uniqueKey } from '../support/api.js';

// Subprocesses: generous limits for a loaded machine (each call takes well under a second when idle).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const t = cliServer();
const run = t.run;

describe('pipelines', () => {
  it('creates with a generated idempotency key per command, and replays with a given one', async () => {
    const intent = unique('replay');
    const a = await t.newPipeline(undefined, intent);
    const key = uniqueKey('cli-test');
    const args = ['pipelines', 'create', '--handle', 'cli-test-archive', '--intent', intent, '--idempotency-key', key, '--json'];
    const [b, c] = [await t.newPipeline(undefined, intent), json(await run(args))];
    // a new key per command: the second is a real resume with a new run
    expect(b).toMatchObject({ pipeline_id: a.pipeline_id, resumed: true });
    expect(b.run_id).not.toBe(a.run_id);
    // the same key again: the first answer, no new run
    expect(json(await run(args))).toEqual(c);
  });

  it('shows a pipeline as a table on a terminal, as tab-separated lines when piped, and as JSON with --json', async () => {
    const { pipeline_id } = await t.newPipeline();
    const [table, piped, j] = await Promise.all([
      run(['pipelines', 'get', pipeline_id], { CPA_FORCE_TTY: '1' }),
      run(['pipelines', 'get', pipeline_id]),
      run(['pipelines', 'get', pipeline_id, '--json']),
    ]);
    expectExit(table, 0);
    expect(table.stdout).toMatch(new RegExp(`│ id +│ ${pipeline_id}`));
    expect(table.stdout).toMatch(/│ handle +│ cli-test-archive/);
    expect(table.stdout).toMatch(/│ last_run\.run_id +│ run_/);
    expectExit(piped, 0);
    expect(piped.stdout).toMatch(new RegExp(`^id\t${pipeline_id}$`, 'm'));
    expect(piped.stdout).toMatch(/^handle\tcli-test-archive$/m);
    expect(piped.stdout).toMatch(/^last_run\.run_id\trun_\w+$/m);
    expect(piped.stdout).not.toMatch(/[│─]/);
    expect(json(j)).toMatchObject({ id: pipeline_id, handle: 'cli-test-archive', last_run: { run_id: expect.stringMatching(/^run_/) } });
  });

  it('keeps the fields --json names, wherever --json stands, and lists the fields when one is unknown', async () => {
    const { pipeline_id } = await t.newPipeline();
    const [picked, before, beforeId, unknown] = await Promise.all([
      run(['pipelines', 'get', pipeline_id, '--json', 'handle,id']),
      run(['--json', 'pipelines', 'get', pipeline_id]),
      run(['pipelines', 'get', '--json', 'id', pipeline_id]),
      run(['pipelines', 'get', pipeline_id, '--json', 'id,nope']),
    ]);
    expect(json(picked)).toEqual({ handle: 'cli-test-archive', id: pipeline_id });
    expect(Object.keys(json(picked))).toEqual(['handle', 'id']); // in the order asked for
    expect(json(before)).toMatchObject({ id: pipeline_id, handle: 'cli-test-archive' });
    expect(json(beforeId)).toEqual({ id: pipeline_id });
    expectExit(unknown, 2);
    expect(unknown.stdout).toBe('');
    expect(JSON.parse(unknown.stderr)).toMatchObject({
      error: { code: 'cli_error', message: expect.stringMatching(/Unknown JSON field "nope"[\s\S]*\n {2}handle\n[\s\S]*\n {2}last_run\n/) },
    });
  });
});

describe('posts', () => {
  it('lists a page, follows every cursor with --all (progress on stderr), and filters by draft', async () => {
    const { pipelineId, postIds: ids } = await t.pipelineWithPosts(7);
    await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId, postId: ids[2]!, state: 'review' });
    const [page, all, withDraft, without] = await Promise.all([
      run(['posts', 'list', pipelineId, '--limit', '3']),
      run(['posts', 'list', pipelineId, '--limit', '3', '--all', '--json']),
      run(['posts', 'list', pipelineId, '--has-artifact', '--json']),
      run(['posts', 'list', pipelineId, '--no-has-artifact', '--json']),
    ]);
    expectExit(page, 0);
    expect(page.stdout.match(/post_[0-9a-f]{16}/g)).toHaveLength(3);
    expect(page.stderr).toMatch(/--cursor \S+/);
    // piped: one tab-separated line a post, id first, the whole text last, no header
    const rows = page.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(3);
    for (const r of rows)
      expect(r).toEqual([expect.stringMatching(/^post_[0-9a-f]{16}$/), ...Array<unknown>(7).fill(expect.any(String)), expect.stringMatching(/\S/)]);

    // --json FIELDS on a list: an array of those fields of each post
    const picked = json<Array<Record<string, unknown>>>(await run(['posts', 'list', pipelineId, '--limit', '3', '--json', 'id,has_artifact']));
    expect(picked).toHaveLength(3);
    for (const p of picked) expect(Object.keys(p)).toEqual(['id', 'has_artifact']);

    expectExit(all, 0);
    const body = json<{ data: Array<{ id: string }>; next_cursor: null }>(all);
    expect(body.data.map((p) => p.id).sort()).toEqual([...ids].sort());
    expect(body.next_cursor).toBeNull();
    expect(all.stderr).toMatch(/page 3: 7 posts so far/);

    expect(json<{ data: Array<{ id: string }> }>(withDraft).data.map((p) => p.id)).toEqual([ids[2]]);
    const rest = json<{ data: Array<{ id: string }> }>(without).data.map((p) => p.id);
    expect(rest).toHaveLength(6);
    expect(rest).not.toContain(ids[2]);
  });
});

describe('artifacts', () => {
  it('shows the text, approves, and records a post made by hand once for a given key; the variant never says published when it went nowhere', async () => {
    const { artifactId: id } = await t.artifact('review', { text: 'Line one.\nLine two of the draft.' });
    const shown = await run(['artifacts', 'get', id]);
    expectExit(shown, 0);
    expect(shown.stdout).toMatch(/^state\treview$/m);
    expect(shown.stdout).toContain('\nLine one.\nLine two of the draft.\n');

    expect(json(await run(['artifacts', 'transition', id, '--to', 'ready', '--json']))).toMatchObject({ id, state: 'ready' });

    // Nothing posts for this pipeline: publishing has no destination (exit 5: connect an account).
    const nowhere = await run(['artifacts', 'publish', id]);
    expectExit(nowhere, 5);
    expect(nowhere.stderr).toContain('connect_account');
    const key = uniqueKey('mark');
    const mark = [
      'artifacts',
      'mark-published',
      id,
      '--platform',
      'linkedin',
      '--url',
      'https://www.linkedin.com/feed/update/urn:li:activity:7265839201837461504/',
    ];
    const published = json(await run([...mark, '--idempotency-key', key, '--json']));
    expect(published).toMatchObject({ id, state: 'published', destinations: [{ platform: 'linkedin', manual: true, state: 'live' }] });
    const [replay, fresh] = await Promise.all([run([...mark, '--idempotency-key', key, '--json']), run(['artifacts', 'publish', id])]);
    expect(json(replay)).toEqual(published);
    // a new key is a new attempt, refused: it is published already
    expectExit(fresh, 8);
    const shown2 = await run(['artifacts', 'get', id]);
    expect(shown2.stdout).not.toContain('published here');
    expect(shown2.stdout).toContain('linkedin  live (posted by hand)');
  });
});

describe('scheduled publishing', () => {
  it('publish --local-time --time-zone schedules; schedule list shows it; unschedule takes it back; a DST gap is exit 7 naming the field', async () => {
    const { artifactId: id, pipelineId } = await t.artifact('ready', { text: 'Scheduled from the terminal 🗓️' });
    // A destination: a Mastodon account of the workspace (its run is unscheduled before it is due, so it never posts).
    const handle = `@${unique('sched')}@mastodon.example`;
    const now = new Date();
    await insertRow(t.s.running.deps.db, 'Account', {
      id: unique('acc_cli'),
      workspaceId: t.ws,
      platform: 'mastodon',
      handle,
      credentials: 'sealed',
      status: 'active',
      lastProbedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    const to = ['--to', `mastodon:${handle}`];
    const gap = await run(['artifacts', 'publish', id, ...to, '--local-time', '2030-03-31T02:30', '--time-zone', 'Europe/Paris']);
    expect(gap.stderr).toMatch(/body\.local_time 2030-03-31T02:30 does not exist in Europe\/Paris/);
    expectExit(gap, 4);

    const scheduled = json<{ artifact: { state: string; schedule: { at: string; time_zone: string } }; run: { run_id: string } }>(
      await run(['artifacts', 'publish', id, ...to, '--local-time', '2030-12-02T09:30', '--time-zone', 'America/New_York', '--json']),
    );
    expect(scheduled.artifact).toMatchObject({ state: 'scheduled', schedule: { at: '2030-12-02T14:30:00.000Z', time_zone: 'America/New_York' } });
    // The list shows the instant in UTC, on the terminal's clock (its TZ), and as given in its zone (piped: tab-separated, no header).
    const listed = await cpa(['--base-url', t.s.url, '--token', t.s.token, 'artifacts', 'schedule', 'list', pipelineId], { env: { TZ: 'Asia/Tokyo' } });
    expectExit(listed, 0);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('2030-12-02 14:30 UTC');
    expect(listed.stdout).toContain('2030-12-02 23:30 GMT+9');
    expect(listed.stdout).toContain('2030-12-02 09:30 EST (America/New_York)');

    expect(json(await run(['artifacts', 'unschedule', id, '--json']))).toMatchObject({ id, state: 'ready', schedule: null });
    const empty = await run(['artifacts', 'schedule', 'list', pipelineId]);
    expect(empty.stderr + empty.stdout).toMatch(/Nothing is scheduled/);
  });
});

describe('runs', () => {
  it('drafts with --wait: progress on stderr, the finished run and the artifact on stdout', async () => {
    const { postIds } = await t.pipelineWithPosts(1);
    const r = await run(['posts', 'draft', postIds[0]!, '--wait', '--json']);
    expectExit(r, 0);
    const out = json<{ run_id: string; artifact_id: string; run: { status: string; kind: string } }>(r);
    expect(out.run).toMatchObject({ status: 'succeeded', kind: 'draft' });
    const [artifact, again] = await Promise.all([run(['artifacts', 'get', out.artifact_id, '--json']), run(['wait', out.run_id])]);
    expect(json(artifact)).toMatchObject({ state: 'review', text: expect.stringMatching(/\S/) });
    expectExit(again, 0);
    expect(again.stdout).toMatch(/^status\tsucceeded$/m);
    expect(again.stderr).toMatch(new RegExp(`run ${out.run_id} \\(draft\\): succeeded`));
  });

  it('wait: exit 10 for a failed run, showing why; 11 past --timeout; 7 for an unknown run', async () => {
    // no account is connected for this handle: its ingest run fails (credential_missing)
    const failing = await t.newPipeline('@ada@mastodon.example');
    // a run queued for later stays queued
    const queued = await t.newPipeline();
    await updateRows(t.s.running.deps.db, 'Run', { id: queued.run_id }, { status: 'queued', runAfter: new Date(Date.now() + 3_600_000) });
    const [failed, timedOut, unknown] = await Promise.all([
      run(['wait', failing.run_id, '--interval', '100', '--timeout', '20']),
      run(['wait', queued.run_id, '--timeout', '1', '--interval', '100', '--json']),
      run(['wait', 'run_none']),
    ]);
    expectExit(failed, 10);
    expect(failed.stdout).toMatch(/^status\tfailed$/m);
    expect(failed.stderr).toMatch(new RegExp(`Run ${failing.run_id} failed: credential_missing`));
    expectExit(timedOut, 11);
    expect(JSON.parse(timedOut.stderr)).toMatchObject({ error: { code: 'timed_out' }, run: { run_id: queued.run_id, status: 'queued' } });
    expectExit(unknown, 7);
  });
});
