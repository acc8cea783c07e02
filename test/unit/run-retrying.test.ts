// A run that failed transiently and waits for its next attempt says so: the Run view, the
// diagnose report and the `cpa wait` progress line all show the retry, its last error, the
// attempt number and when the next attempt is due.
import { describe, expect, it } from 'vitest';
import { describeRun } from '../../clients/cli/src/progress.js';
import { issuesOf, type Facts } from '../../server/services/diagnose.js';
import { runView } from '../../server/services/views.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const row = (over: Record<string, unknown> = {}) =>
  ({
    id: 'run_1',
    workspaceId: 'ws',
    pipelineId: 'pl_1',
    kind: 'ingest',
    status: 'queued',
    attempts: 2,
    input: '{}',
    output: null,
    errorCode: 'backend_unavailable',
    errorMessage: 'getaddrinfo ENOTFOUND blog.example.org',
    runAfter: new Date(NOW.getTime() + 40_000),
    lockedUntil: null,
    lockedBy: null,
    createdAt: NOW,
    startedAt: NOW,
    finishedAt: null,
    progressDone: null,
    progressTotal: null,
    errorUpstreamStatus: null,
    ...over,
  }) as Facts['stalled'][number];

describe('a run waiting to retry', () => {
  it('shows retrying, the last error, the attempt and the next attempt time', () => {
    expect(runView(row())).toMatchObject({
      status: 'queued',
      retrying: true,
      attempts: 2,
      error: null,
      last_error: { code: 'backend_unavailable', message: 'getaddrinfo ENOTFOUND blog.example.org' },
      next_attempt_at: '2026-11-22T12:00:40.000Z',
    });
  });

  it('a fresh queued run, a running one and a finished one are not retrying', () => {
    expect(runView(row({ attempts: 0, errorCode: null, errorMessage: null }))).toMatchObject({ retrying: false, last_error: null, next_attempt_at: null });
    expect(runView(row({ status: 'running', errorCode: null, errorMessage: null }))).toMatchObject({
      retrying: false,
      last_error: null,
      next_attempt_at: null,
    });
    const failed = runView(row({ status: 'failed', finishedAt: NOW }));
    expect(failed).toMatchObject({
      retrying: false,
      next_attempt_at: null,
      error: { code: 'backend_unavailable' },
      last_error: { code: 'backend_unavailable' },
    });
  });

  it('diagnose reports it with its cause and when it runs again', () => {
    const good = row({ status: 'succeeded', errorCode: null, errorMessage: null, finishedAt: NOW });
    const f = {
      pipeline: {
        id: 'pl_1',
        workspaceId: 'ws',
        handle: 'https://blog.example.org/feed.xml',
        intent: 'i',
        tone: null,
        platform: 'rss',
        createdAt: NOW,
        updatedAt: NOW,
        destinations: null,
      },
      now: NOW,
      needsAccount: false,
      account: null,
      ingest: { last: good, lastGood: good, count: 1 },
      stalled: [],
      retrying: [row()],
      postCount: 3,
      unreadDates: { count: 0, samples: [] },
      failedDrafts: [],
      deliveries: [],
      publishFailed: [],
      dueSoon: [],
      llm: null,
      allowHosts: [],
      missingAltText: [],
      unpostable: [],
      exportOnly: [],
      fromDirect: [],
      signIns: [],
    } satisfies Facts;
    const issue = issuesOf(f).find((i) => i.code === 'run_retrying');
    expect(issue).toMatchObject({ severity: 'warning', suggested_endpoint: 'GET /api/agent/v1/runs/run_1' });
    expect(issue!.message).toContain('attempt 2');
    expect(issue!.message).toContain('backend_unavailable: getaddrinfo ENOTFOUND blog.example.org');
    expect(issue!.message).toContain('2026-11-22T12:00:40.000Z');
  });

  it('cpa wait shows it on its progress line', () => {
    const line = describeRun(runView(row()), Date.now());
    expect(line).toContain('retrying');
    expect(line).toContain('attempt 2');
    expect(line).toContain('backend_unavailable');
    expect(line).toContain('2026-11-22T12:00:40.000Z');
  });
});

describe("a run's subject", () => {
  it('names the artifact a draft, regeneration or publish run works on, and null for an ingest or a refresh', () => {
    expect(runView(row({ kind: 'publish', input: '{"artifact_id":"art_1","confirm_non_public":true}' })).artifact_id).toBe('art_1');
    expect(runView(row({ kind: 'draft', input: '{"artifact_id":"art_2","style_reference":null}' })).artifact_id).toBe('art_2');
    expect(runView(row({ kind: 'ingest', input: '{}' })).artifact_id).toBeNull();
    expect(runView(row({ kind: 'refresh_source', pipelineId: null, input: '{"source_id":"src_1"}' })).artifact_id).toBeNull();
    expect(runView(row({ kind: 'publish', input: 'not json' })).artifact_id).toBeNull();
  });
});
