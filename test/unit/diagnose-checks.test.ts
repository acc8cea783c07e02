// The diagnose checks as pure functions of a pipeline's facts: the thresholds (stale ingest,
// stalled runs), the writer checks, failed deliveries, and the report's ordering and status.
import { describe, expect, it } from 'vitest';
import { diagnoseStatus, issuesOf, type Facts } from '../../server/services/diagnose.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3_600_000);

function run(over: Record<string, unknown> = {}) {
  return {
    id: 'run_1',
    workspaceId: 'ws',
    pipelineId: 'pl_1',
    kind: 'ingest',
    status: 'succeeded',
    attempts: 1,
    input: '{}',
    output: null,
    errorCode: null,
    errorMessage: null,
    runAfter: hoursAgo(1),
    lockedUntil: null,
    lockedBy: null,
    createdAt: hoursAgo(1),
    startedAt: hoursAgo(1),
    finishedAt: hoursAgo(1),
    ...over,
  } as Facts['stalled'][number];
}

function facts(over: Partial<Facts> = {}): Facts {
  const good = run();
  return {
    pipeline: {
      id: 'pl_1',
      workspaceId: 'ws',
      handle: 'https://blog.example/feed.xml',
      intent: 'i',
      tone: null,
      platform: 'rss',
      createdAt: hoursAgo(48),
      updatedAt: hoursAgo(48),
      destinations: null,
    },
    now: NOW,
    needsAccount: false,
    account: null,
    ingest: { last: good, lastGood: good, count: 1 },
    stalled: [],
    retrying: [],
    postCount: 3,
    unreadDates: { count: 0, samples: [] },
    failedDrafts: [],
    deliveries: [],
    publishFailed: [],
    dueSoon: [],
    llm: { baseUrl: 'https://api.example.com/v1', apiKey: 'k', model: 'm' },
    allowHosts: [],
    missingAltText: [],
    unpostable: [],
    exportOnly: [],
    fromDirect: [],
    signIns: [],
    ...over,
  };
}

const codes = (f: Facts) => issuesOf(f).map((i) => i.code);

describe('diagnose checks', () => {
  it('finds nothing wrong with a fresh, productive pipeline and a hosted model provider', () => {
    expect(issuesOf(facts())).toEqual([]);
    expect(diagnoseStatus([])).toBe('healthy');
  });

  it('calls an ingest stale after 24 hours, not before', () => {
    const at = (h: number) => facts({ ingest: { last: run({ finishedAt: hoursAgo(h) }), lastGood: run({ finishedAt: hoursAgo(h) }), count: 3 } });
    expect(codes(at(23))).toEqual([]);
    const stale = issuesOf(at(25));
    expect(stale.map((i) => [i.code, i.severity, i.suggested_action, i.suggested_endpoint])).toEqual([
      ['ingest_stale', 'warning', 'start_pipeline', 'POST /api/agent/v1/pipelines/from-intent'],
    ]);
    expect(stale[0]!.message).toContain('25 hours');
  });

  it('reports runs that wait for the worker more than 15 minutes', () => {
    const waiting = (min: number) =>
      facts({ stalled: [run({ id: 'run_w', kind: 'draft', status: 'queued', runAfter: new Date(NOW.getTime() - min * 60_000) })] });
    const [issue] = issuesOf(waiting(40));
    expect(issue).toMatchObject({
      code: 'runs_stalled',
      severity: 'warning',
      suggested_action: 'fetch_pipeline',
      suggested_endpoint: 'GET /api/agent/v1/pipelines/pl_1',
    });
    expect(issue!.message).toContain('run_w');
    expect(issue!.message).toContain('40 minutes');
  });

  it('tells the built-in writer apart (info) from a local provider the outbound client will refuse (error)', () => {
    const none = issuesOf(facts({ llm: null }));
    expect(none.map((i) => [i.code, i.severity, i.suggested_action])).toEqual([['no_writer_configured', 'info', 'configure_writer']]);
    expect(diagnoseStatus(none)).toBe('healthy');

    const local = { baseUrl: 'http://127.0.0.1:11434/v1', apiKey: null, model: 'llama3.2' };
    const blocked = issuesOf(facts({ llm: local }));
    expect(blocked.map((i) => [i.code, i.severity])).toEqual([['writer_blocked', 'error']]);
    expect(blocked[0]!.message).toContain('OUTBOUND_ALLOW_HOSTS');
    expect(diagnoseStatus(blocked)).toBe('unhealthy');
    expect(codes(facts({ llm: local, allowHosts: ['127.0.0.1:11434'] }))).toEqual([]);
    expect(codes(facts({ llm: { ...local, baseUrl: 'http://localhost:8080/v1' } }))).toEqual(['writer_blocked']);
  });

  it('reports failed webhook deliveries without the receiver URL query', () => {
    const delivery = {
      id: 'd1',
      eventId: 'evt_1',
      target: 'https://hooks.example/in?token=secret',
      status: 'failed',
      attempts: 7,
      nextAttemptAt: NOW,
      lockedUntil: null,
      lastStatus: 500,
      lastError: null,
      createdAt: NOW,
      updatedAt: NOW,
    };
    const [issue] = issuesOf(facts({ deliveries: [delivery] }));
    expect(issue).toMatchObject({ code: 'deliveries_failing', severity: 'warning', suggested_endpoint: 'POST https://hooks.example/in' });
    expect(issue!.message).toContain('HTTP 500');
    expect(issue!.message).not.toContain('secret');
  });

  it('reports a failed publish with the way out: connect the account for a credential failure, else publish again', () => {
    const failed = (code: string, id: string) =>
      ({
        id,
        workspaceId: 'ws',
        pipelineId: 'pl_1',
        sourcePostId: 'post_1',
        state: 'publish_failed',
        publishErrorCode: code,
        publishErrorMessage: 'Part 2 of 3 failed. 1 of 3 parts is live (https://mastodon.example/@ada/1).',
        text: 'x',
        updatedAt: NOW,
      }) as unknown as Facts['publishFailed'][number];
    const [dead] = issuesOf(facts({ publishFailed: [failed('credential_dead', 'art_1')] }));
    expect(dead).toMatchObject({
      code: 'publish_failed',
      severity: 'error',
      suggested_action: 'connect_account',
      suggested_endpoint: 'POST /api/agent/v1/accounts/connect',
    });
    expect(dead!.message).toContain('art_1');
    expect(dead!.message).toContain('https://mastodon.example/@ada/1');
    const [other] = issuesOf(facts({ publishFailed: [failed('upstream_rejected', 'art_2'), failed('credential_dead', 'art_1')] }));
    expect(other).toMatchObject({ suggested_action: 'publish_artifact', suggested_endpoint: 'POST /api/agent/v1/artifacts/art_2/publish' });
    expect(other!.message).toContain('2 artifacts of the pipeline are publish_failed');
    expect(codes(facts())).not.toContain('publish_failed');
  });

  it('orders errors before warnings before info, and rates the report by the worst', () => {
    const f = facts({
      llm: null,
      stalled: [run({ status: 'queued', runAfter: hoursAgo(2) })],
      needsAccount: true,
      pipeline: { ...facts().pipeline, platform: 'mastodon', handle: '@ada@mastodon.example' },
    });
    const issues = issuesOf(f);
    expect(issues.map((i) => i.severity)).toEqual(['error', 'warning', 'info']);
    expect(issues[0]!.code).toBe('no_account');
    expect(diagnoseStatus(issues)).toBe('unhealthy');
    expect(diagnoseStatus(issues.slice(1))).toBe('degraded');
  });

  it('reports artifacts drawn from a retired direct message: published ones as a warning with their address, the others as info', () => {
    const artifact = (id: string, state: string, publishedUrl: string | null = null) =>
      ({ id, state, publishedUrl, text: 'x', sourceVisibility: 'direct' }) as unknown as Facts['fromDirect'][number];
    const issues = issuesOf(
      facts({ fromDirect: [artifact('art_p', 'published', 'https://mastodon.example/@ada/9'), artifact('art_r', 'ready'), artifact('art_d', 'draft')] }),
    );
    expect(issues.map((i) => [i.code, i.severity])).toEqual([
      ['direct_message_source', 'warning'],
      ['direct_message_source', 'info'],
    ]);
    expect(issues[0]).toMatchObject({ suggested_action: 'fetch_artifact', suggested_endpoint: 'GET /api/agent/v1/artifacts/art_p' });
    expect(issues[0]!.message).toContain('art_p (https://mastodon.example/@ada/9)');
    expect(issues[1]!.message).toMatch(/^2 unpublished artifacts .*art_r, art_d/);
    expect(diagnoseStatus(issues)).toBe('degraded');
    expect(codes(facts())).not.toContain('direct_message_source');
  });

  it('flags unpublished artifacts with images without alt text, naming the newest in the endpoint', () => {
    const artifact = (id: string) => ({ id, text: 'Shipped', media: '[]' }) as unknown as Facts['missingAltText'][number];
    const [issue] = issuesOf(facts({ missingAltText: [artifact('art_b'), artifact('art_a')] }));
    expect(issue).toMatchObject({
      code: 'media_missing_alt_text',
      severity: 'warning',
      suggested_action: 'set_alt_text',
      suggested_endpoint: 'PUT /api/agent/v1/artifacts/art_b/media',
    });
    expect(issue!.message).toMatch(/^2 unpublished artifacts have images without alt text \(art_b, art_a\)/);
  });

  it('says when posts came with dates that could not be read (info, never silent), showing up to 3 as written', () => {
    const [issue] = issuesOf(facts({ unreadDates: { count: 4, samples: ['Xyz, 99 Foo 2018', '', 'hier'] } }));
    expect(issue).toMatchObject({
      code: 'unread_dates',
      severity: 'info',
      suggested_action: 'list_posts',
      suggested_endpoint: 'GET /api/agent/v1/pipelines/pl_1/posts',
    });
    expect(issue!.message).toMatch(
      /^4 posts of https:\/\/blog\.example\/feed\.xml came with a date that could not be read \("Xyz, 99 Foo 2018", no date at all, "hier"\)/,
    );
    expect(diagnoseStatus(issuesOf(facts({ unreadDates: { count: 4, samples: [] } })))).toBe(diagnoseStatus(issuesOf(facts())));
  });
});
