// Diagnose through the client against a real server: real ingest runs against a local fake feed
// (working, empty, gone), a Mastodon pipeline without an account, a dead credential, and failed
// drafting runs. Each issue carries the action and the endpoint that fix it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { saveAccount, setProbeResult } from '../../server/store/accounts.js';
import { diagnosePipeline } from '../../server/services/diagnose.js';
import { rssFeed } from '../support/feeds.js';
import { reply, startFake, type Fake } from '../support/https-fake.js';
import { serverSuite } from '../support/suite.js';
import { startTestServer } from '../support/server.js';
import { refusal } from '../support/errors.js';
import { waitForRun } from '../support/runs.js';
import { seedArtifact, seedPosts } from '../support/seed.js';
import { insertRow } from '../support/rows.js';
import { newPipeline, unique, V1 } from '../support/api.js';
import { SCOPES } from '../../server/services/tokens.js';

let fake: Fake;

const ITEMS = [1, 2].map((n) => ({
  guid: `g${n}`,
  title: `Release ${n}`,
  description: `Notes for release ${n}. It is faster.`,
  link: `https://blog.example.org/r${n}`,
  pubDate: new Date(Date.UTC(2026, 10, n)),
}));

beforeAll(async () => {
  fake = await startFake({
    routes: {
      '/feed.xml': reply(200, rssFeed('Blog', ITEMS), 'application/rss+xml'),
      '/down.xml': reply(503, 'down for maintenance'),
      '/empty.xml': reply(200, rssFeed('Empty', []), 'application/rss+xml'),
    },
    handler: reply(404, 'gone'),
  });
});
const t = serverSuite(() => fake.outboundEnv);
afterAll(async () => {
  await fake?.close();
});

/** Starts a pipeline and waits for its first ingest to finish. */
async function ingested(handle: string) {
  const r = await newPipeline(t.s, { handle, intent: unique('diagnose') });
  const run = await waitForRun(t.s.running.deps, r.run_id);
  return { pipelineId: r.pipeline_id, run };
}

const diagnose = (id: string, token = t.s.token) => unwrap(t.s.client(token).GET(`${V1}/pipelines/{id}/diagnose`, { params: { path: { id } } }));
const byCode = (r: Schemas['DiagnoseReport'], code: string) => r.issues.find((i) => i.code === code);

describe('diagnose', () => {
  it('finds a working feed pipeline healthy, noting only the built-in writer', async () => {
    const { pipelineId, run } = await ingested(`${fake.url}/feed.xml`);
    expect(run.status).toBe('succeeded');
    const r = await diagnose(pipelineId);
    expect(r.pipeline_id).toBe(pipelineId);
    expect(r.status).toBe('healthy');
    expect(r.issues.map((i) => [i.code, i.severity, i.suggested_action])).toEqual([['no_writer_configured', 'info', 'configure_writer']]);
    expect(r.issues[0]!.suggested_endpoint).toBe(`GET ${V1}/pipelines/${pipelineId}/diagnose`);
  });

  it('reports an ingest that found no post (degraded)', async () => {
    const { pipelineId } = await ingested(`${fake.url}/empty.xml`);
    const r = await diagnose(pipelineId);
    expect(r.status).toBe('degraded');
    expect(byCode(r, 'no_posts')).toMatchObject({
      severity: 'warning',
      suggested_action: 'start_pipeline',
      suggested_endpoint: `POST ${V1}/pipelines/from-intent`,
    });
  });

  it('reports a failed ingest with its cause (unhealthy)', async () => {
    const { pipelineId, run } = await ingested(`${fake.url}/gone.xml`);
    expect(run.status).toBe('failed');
    const r = await diagnose(pipelineId);
    expect(r.status).toBe('unhealthy');
    const issue = byCode(r, 'ingest_failed')!;
    expect(issue).toMatchObject({ severity: 'error', suggested_action: 'start_pipeline' });
    expect(issue.message).toContain(run.id);
    expect(issue.message).toContain(run.errorCode!);
    expect(byCode(r, 'ingest_never_succeeded')).toBeUndefined();
  });

  it('reports a Mastodon pipeline without an account, and its ingest failing for it, with connect_account', async () => {
    const { pipelineId, run } = await ingested('@nobody@mastodon.example');
    expect(run.errorCode).toBe('credential_missing');
    const r = await diagnose(pipelineId);
    expect(r.issues[0]).toMatchObject({
      code: 'no_account',
      severity: 'error',
      suggested_action: 'connect_account',
      suggested_endpoint: `POST ${V1}/accounts/connect`,
    });
    expect(byCode(r, 'ingest_failed')).toMatchObject({ suggested_action: 'connect_account', suggested_endpoint: `POST ${V1}/accounts/connect` });
  });

  it('reports a dead credential with why its probe failed', async () => {
    const now = new Date();
    const { account } = await saveAccount(t.s.running.deps.db, {
      id: 'acc_dead_1',
      workspaceId: t.ws,
      platform: 'mastodon',
      handle: '@eve@mastodon.example',
      credentials: 'sealed',
      proxyUrl: null,
      now,
    });
    await setProbeResult(t.s.running.deps.db, { id: account.id, status: 'dead', error: 'The access token was revoked', now });
    const r = await unwrap(
      t.s.client().POST(`${V1}/pipelines/from-intent`, { body: { handle: '@eve@mastodon.example', intent: 'dead', idempotency_key: newIdempotencyKey() } }),
    );
    const report = await diagnose(r.pipeline_id);
    const issue = byCode(report, 'credential_dead')!;
    expect(issue).toMatchObject({ severity: 'error', suggested_action: 'connect_account' });
    expect(issue.message).toContain('The access token was revoked');
    expect(byCode(report, 'no_account')).toBeUndefined();
  });

  it('reports failed drafting runs: a writer failure points at the writer, another at re-drafting the post', async () => {
    const { pipelineId } = await ingested(`${fake.url}/feed.xml`);
    const [postId] = await seedPosts(t.s.running.deps, { workspaceId: t.ws, pipelineId, count: 1, platform: 'rss' });
    const failDraft = async (code: string) => {
      const a = await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId, postId: postId!, state: 'discarded', text: '' });
      const id = t.s.running.deps.ids.id('run');
      await insertRow(t.s.running.deps.db, 'Run', {
        id,
        workspaceId: t.ws,
        pipelineId,
        kind: 'draft',
        status: 'failed',
        input: JSON.stringify({ artifact_id: a.id }),
        errorCode: code,
        errorMessage: 'it broke',
        finishedAt: new Date(),
        createdAt: new Date(),
        runAfter: new Date(),
      });
      return id;
    };
    const other = await failDraft('not_found');
    let issue = byCode(await diagnose(pipelineId), 'runs_failing')!;
    expect(issue).toMatchObject({ severity: 'warning', suggested_action: 'draft_post', suggested_endpoint: `POST ${V1}/posts/${postId}/draft` });
    expect(issue.message).toContain(other);
    await new Promise((r) => setTimeout(r, 5));
    const writer = await failDraft('writer_failed');
    issue = byCode(await diagnose(pipelineId), 'runs_failing')!;
    expect(issue).toMatchObject({ suggested_action: 'configure_writer' });
    expect(issue.message).toMatch(/^2 drafting run/);
    expect(issue.message).toContain(writer);
  });

  it('is 404 for an unknown pipeline and for another workspace', async () => {
    const { pipelineId } = await ingested(`${fake.url}/feed.xml`);
    for (const [id, token] of [
      ['pl_nope', t.s.token],
      [pipelineId, await t.s.newWorkspace()],
    ] as const) {
      expect((await refusal(diagnose(id, token))).status).toBe(404);
    }
  });

  it('shows a run waiting to retry: GET /runs says retrying with the last error and the next attempt, diagnose reports run_retrying', async () => {
    // A retry delay far beyond the test, so that the run stays waiting while it is looked at.
    const s = await startTestServer({ env: { ...fake.outboundEnv, JOB_RETRY_BASE_MS: '3600000' } });
    try {
      const created = await unwrap(
        s.client().POST(`${V1}/pipelines/from-intent`, { body: { handle: `${fake.url}/down.xml`, intent: 'retrying', idempotency_key: newIdempotencyKey() } }),
      );
      const getRun = () => unwrap(s.client().GET(`${V1}/runs/{id}`, { params: { path: { id: created.run_id } } }));
      let run = await getRun();
      while (!run.retrying) {
        expect(run.status).not.toBe('failed');
        await new Promise((r) => setTimeout(r, 50));
        run = await getRun();
      }
      expect(run).toMatchObject({
        status: 'queued',
        attempts: 1,
        error: null,
        last_error: { code: 'backend_unavailable', message: expect.stringContaining('503'), upstream_status: 503 },
      });
      expect(Date.parse(run.next_attempt_at!)).toBeGreaterThan(Date.now());
      const report = await unwrap(s.client().GET(`${V1}/pipelines/{id}/diagnose`, { params: { path: { id: created.pipeline_id } } }));
      expect(byCode(report, 'run_retrying')).toMatchObject({
        severity: 'warning',
        suggested_action: 'fetch_run',
        suggested_endpoint: `GET ${V1}/runs/${created.run_id}`,
      });
    } finally {
      await s.stop();
    }
  });

  it('lets a database failure while reading the account propagate instead of reporting a missing account', async () => {
    const created = await unwrap(
      t.s
        .client()
        .POST(`${V1}/pipelines/from-intent`, { body: { handle: '@dbdown@mastodon.example', intent: 'db down', idempotency_key: newIdempotencyKey() } }),
    );
    const deps = t.s.running.deps;
    const caller = { workspaceId: t.ws, tokenId: 'tok_test', scopes: SCOPES };
    // Every other query reaches the real database; only the account lookup fails, as a lost connection would.
    const lost = () => Promise.reject(new Error('connection terminated unexpectedly'));
    // A query on Account whose every builder step chains and whose execution fails.
    const failing: unknown = new Proxy({}, { get: (_t, p) => (String(p).startsWith('execute') ? lost : () => failing) });
    const db = new Proxy(deps.db, {
      get: (target, prop) => {
        if (prop === 'selectFrom') return (table: string) => (table === 'Account' ? failing : target.selectFrom(table as never));
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    await expect(diagnosePipeline({ ...deps, db }, caller, created.pipeline_id)).rejects.toThrow('connection terminated unexpectedly');
    // A handle that cannot name an account is still an expected answer: no account, no error.
    const report = await diagnosePipeline(deps, caller, created.pipeline_id);
    expect(byCode(report, 'no_account')).toBeDefined();
  });
});
