// The workspace-wide lists (GET /pipelines, /artifacts, /accounts, /imports, /runs) and the
// calendar (GET /calendar): 10,000 rows of each, seeded through the store in bulk, paged to the
// end over HTTP while rows are being inserted (each seeded row comes exactly once, no row twice);
// filters combined; another workspace's rows never visible; no credential in an account listing
// (checked on the raw bytes); the cursor and range refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { archiveFixture, connect, V1 } from '../support/api.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { rssDocument, startConnectProxy, startFeedFake, startMastodonFake, type ProxyFake } from '../support/platforms.js';
import { insertRows } from '../support/rows.js';
import { workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';

const N = 10_000;
const BASE = Date.parse('2026-10-01T00:00:00.000Z');
/** Every third row shares its creation time with the one before: the id breaks the tie. */
const createdAt = (i: number) => new Date(BASE + Math.floor((i + 1) / 3) * 1000);
const STATES = ['review', 'ready', 'scheduled', 'published', 'draft'] as const;
const SCHEDULE_START = Date.parse('2027-01-01T00:00:00.000Z');
/** Scheduled artifacts spread over 60 days, every other one sharing its time with the one before. */
const scheduledAt = (i: number) => new Date(SCHEDULE_START + Math.floor(i / 2) * 517_000);
const SECRET = 'sk-SEEDED-CREDENTIAL-NEVER-SHOWN';
const PROXY_SECRET = 'http://proxyuser:PROXY-PASSWORD-NEVER-SHOWN@proxy.example:3128';

let s: TestServer;
let ws: string;
let otherToken: string;
let other: string;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let feed: Awaited<ReturnType<typeof startFeedFake>>;
let proxy: ProxyFake;
let pipelines: string[];
let seq = 0;
const ids = (prefix: string) => `${prefix}_${(seq++).toString(16).padStart(6, '0')}${Math.random().toString(16).slice(2, 10)}`;

interface Seeded {
  id: string;
  i: number;
}
const seeded: Record<'pipelines' | 'artifacts' | 'accounts' | 'imports' | 'runs', Seeded[]> = {
  pipelines: [],
  artifacts: [],
  accounts: [],
  imports: [],
  runs: [],
};
/** The neighbour workspace's rows, by list. */
const theirs: Record<keyof typeof seeded, string[]> = { pipelines: [], artifacts: [], accounts: [], imports: [], runs: [] };
/** The seeded artifacts with what the filters look at. */
const artifacts: Array<{ id: string; pipelineId: string; state: string; scheduledAt: Date | null; updatedAt: Date }> = [];

const pipelineRow = (workspaceId: string, i: number, at = createdAt(i)) => ({
  id: ids('pl'),
  workspaceId,
  handle: `@writer${i % 7}@mastodon.example`,
  intent: `Intent ${i}: weekly notes 📝`,
  tone: null,
  platform: 'mastodon',
  createdAt: at,
  updatedAt: at,
});
const artifactRow = (workspaceId: string, pipelineId: string, i: number, at = createdAt(i)) => {
  const state = STATES[i % STATES.length];
  const id = ids('art');
  return {
    id,
    workspaceId,
    pipelineId,
    sourcePostId: `post_${i}`,
    rootArtifactId: id,
    text: `Draft ${i}: 🚀 “quoted” 𝔘𝔫𝔦𝔠𝔬𝔡𝔢`,
    state,
    scheduledAt: state === 'scheduled' ? scheduledAt(i) : null,
    createdAt: at,
    updatedAt: new Date(at.getTime() + (i % 10) * 3_600_000),
  };
};
const accountRow = (workspaceId: string, i: number, at = createdAt(i)) => ({
  id: ids('acc'),
  workspaceId,
  platform: i % 2 ? 'mastodon' : 'bluesky',
  handle: i % 2 ? `@user${i}@mastodon.example` : `user${i}.bsky.social`,
  credentials: `${SECRET}-${i}`,
  proxyUrl: i % 3 ? null : PROXY_SECRET,
  status: i % 5 ? 'active' : 'dead',
  lastProbedAt: at,
  lastProbeError: i % 5 ? null : 'Mastodon refused the credential: 401 The access token is invalid',
  createdAt: at,
  updatedAt: at,
});
const SUMMARY = JSON.stringify({
  format: 'mastodon',
  container: 'zip',
  files_used: ['outbox.json'],
  entry_count: 4,
  posts: 2,
  by_visibility: { public: 2, unlisted: 0, followers: 0, connections: 0 },
  self_replies: 0,
  media: 0,
  skipped: { direct_message: 1, followers_only: 0, repost: 1, reply: 0, empty: 0, unreadable: 0 },
  first_post_at: '2024-01-01T00:00:00.000Z',
  last_post_at: '2024-06-01T00:00:00.000Z',
});
const importRow = (workspaceId: string, i: number, at = createdAt(i)) => ({
  id: ids('imp'),
  workspaceId,
  handle: `archive-${i % 50}`,
  idempotencyKey: ids('seeded-import-key'),
  requestHash: 'a'.repeat(64),
  format: 'mastodon',
  container: 'zip',
  status: 'superseded',
  sizeBytes: 1000 + i,
  sha256: 'b'.repeat(64),
  blobId: null,
  summary: SUMMARY,
  createdAt: at,
});
const RUN_KINDS = ['ingest', 'draft', 'publish', 'regenerate_variant'];
const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed'];
const runRow = (workspaceId: string, pipelineId: string, i: number, at = createdAt(i)) => ({
  id: ids('run'),
  workspaceId,
  pipelineId,
  kind: RUN_KINDS[i % 4],
  status: RUN_STATUSES[Math.floor(i / 4) % 4],
  // far in the future and failed/succeeded-looking rows: the worker never takes them
  runAfter: new Date('2099-01-01T00:00:00.000Z'),
  createdAt: at,
  errorCode: Math.floor(i / 4) % 4 === 3 ? 'upstream_unavailable' : null,
  errorMessage: Math.floor(i / 4) % 4 === 3 ? 'The upstream answered 503.' : null,
});

beforeAll(async () => {
  mastodon = await startMastodonFake();
  feed = await startFeedFake({ xml: rssDocument([{ guid: 'a', title: 'Hello', description: 'World', pubDate: 'Sun, 01 Nov 2026 10:00:00 GMT' }]) });
  proxy = await startConnectProxy();
  const env = outboundEnvFor(mastodon.fake, feed.fake);
  env.OUTBOUND_ALLOW_HOSTS += `,${proxy.host}`;
  // Paging 10,000 rows of six lists is some 700 requests a minute.
  s = await startTestServer({ env: { ...env, RATE_LIMIT_PER_MINUTE: '100000' } });
  ws = await workspaceOf(s.running.deps, s.token);
  otherToken = await s.newWorkspace('Neighbour');
  other = await workspaceOf(s.running.deps, otherToken);
  const db = s.running.deps.db;
  // Two pipelines that own the artifacts and runs (the 10,000 listed pipelines are seeded apart).
  const owners = [pipelineRow(ws, -2, new Date(BASE - 86_400_000)), pipelineRow(ws, -1, new Date(BASE - 86_400_000))];
  pipelines = owners.map((p) => p.id);
  const rows = {
    pipelines: Array.from({ length: N }, (_, i) => pipelineRow(ws, i)),
    artifacts: Array.from({ length: N }, (_, i) => artifactRow(ws, pipelines[i % 2]!, i)),
    accounts: Array.from({ length: N }, (_, i) => accountRow(ws, i)),
    imports: Array.from({ length: N }, (_, i) => importRow(ws, i)),
    runs: Array.from({ length: N }, (_, i) => runRow(ws, pipelines[i % 2]!, i)),
  };
  for (const [k, list] of Object.entries(rows)) seeded[k as keyof typeof seeded] = list.map((r, i) => ({ id: r.id, i }));
  artifacts.push(...rows.artifacts);
  await insertRows(db, 'Pipeline', [...owners, ...rows.pipelines]);
  await insertRows(db, 'Artifact', rows.artifacts);
  await insertRows(db, 'Account', rows.accounts);
  await insertRows(db, 'Import', rows.imports);
  await insertRows(db, 'Run', rows.runs);
  // The neighbour's rows, at the same times: none may show in the first workspace's lists.
  const theirPipeline = pipelineRow(other, 0);
  const theirRows = {
    pipelines: [theirPipeline],
    artifacts: [artifactRow(other, theirPipeline.id, 2), artifactRow(other, theirPipeline.id, 3)],
    accounts: [accountRow(other, 1)],
    imports: [importRow(other, 1)],
    runs: [runRow(other, theirPipeline.id, 1)],
  };
  await insertRows(db, 'Pipeline', theirRows.pipelines);
  await insertRows(db, 'Artifact', theirRows.artifacts);
  await insertRows(db, 'Account', theirRows.accounts);
  await insertRows(db, 'Import', theirRows.imports);
  await insertRows(db, 'Run', theirRows.runs);
  for (const [k, list] of Object.entries(theirRows)) theirs[k as keyof typeof theirs] = list.map((r) => r.id);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await mastodon?.fake.close();
  await feed?.fake.close();
  await proxy?.close();
});

/** An instant as a query value (the colons percent-encoded, as clients send them). */
const iso = (d: Date) => encodeURIComponent(d.toISOString());

type ListPath = '/pipelines' | '/artifacts' | '/accounts' | '/imports' | '/runs' | '/calendar';

/** GET a list page with a raw query string (repeated parameters as written), as JSON and raw text. */
async function page(
  path: ListPath,
  query: string,
  token = s.token,
): Promise<{
  status: number;
  text: string;
  json: { data: Array<Record<string, unknown>>; next_cursor: string | null; error?: { code: string; message: string } };
}> {
  const res = await fetch(`${s.url}${V1}${path}?${query}`, { headers: { Authorization: `Bearer ${token}` } });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as never };
}

/**
 * Pages `path` to the end with `query`, calling `between` after each page (to insert rows while
 * paging); returns every id in the order listed, failing on an error answer.
 */
async function pageAll(path: ListPath, query: string, between?: (n: number) => Promise<void>, key = 'id'): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  for (let n = 0; ; n++) {
    const r = await page(path, `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    out.push(...r.json.data.map((d) => String(d[key])));
    if (!r.json.next_cursor) return out;
    cursor = r.json.next_cursor;
    if (between) await between(n);
  }
}

/** Every seeded id exactly once, no id twice (rows inserted while paging may come or not), none of the other workspace's. */
function expectEachOnce(listed: string[], expected: string[]) {
  const foreign = new Set(Object.values(theirs).flat());
  expect(listed.filter((id) => foreign.has(id))).toEqual([]);
  const counts = new Map<string, number>();
  for (const id of listed) counts.set(id, (counts.get(id) ?? 0) + 1);
  expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
  const missing = expected.filter((id) => !counts.has(id));
  expect(missing).toEqual([]);
}

/**
 * Inserts three rows while a list is paged: one newer than everything, one at the creation time
 * of a row already listed (a tie its id breaks either way), one in the middle of what is still
 * to come. An offset-paged list would repeat or skip a row after each of them.
 */
function inserter(make: (i: number, at: Date) => Record<string, unknown>, table: 'Pipeline' | 'Artifact' | 'Account' | 'Import' | 'Run') {
  return async (n: number) => {
    const listedUpTo = N - (n + 1) * 100; // newest first: the rows listed so far are the newest ones
    const rows = [
      make(N + 3 * n, new Date(Date.now() + n)),
      make(N + 3 * n + 1, createdAt(listedUpTo + 5)),
      make(N + 3 * n + 2, createdAt(Math.floor(listedUpTo / 2))),
    ];
    await insertRows(s.running.deps.db, table, rows);
  };
}

describe('each list, 10,000 rows paged to the end while rows are inserted', () => {
  it('GET /pipelines', async () => {
    const listed = await pageAll(
      '/pipelines',
      'limit=100',
      inserter((i, at) => pipelineRow(ws, i, at), 'Pipeline'),
    );
    expectEachOnce(listed, [...seeded.pipelines.map((p) => p.id), ...pipelines]);
  }, 180_000);

  it('GET /artifacts', async () => {
    const listed = await pageAll(
      '/artifacts',
      'limit=100',
      inserter((i, at) => artifactRow(ws, pipelines[0]!, i, at), 'Artifact'),
    );
    expectEachOnce(
      listed,
      seeded.artifacts.map((a) => a.id),
    );
  }, 180_000);

  it('GET /accounts', async () => {
    const listed = await pageAll(
      '/accounts',
      'limit=100',
      inserter((i, at) => accountRow(ws, i, at), 'Account'),
    );
    expectEachOnce(
      listed,
      seeded.accounts.map((a) => a.id),
    );
  }, 180_000);

  it('GET /imports', async () => {
    const listed = await pageAll(
      '/imports',
      'limit=100',
      inserter((i, at) => importRow(ws, i, at), 'Import'),
    );
    expectEachOnce(
      listed,
      seeded.imports.map((a) => a.id),
    );
  }, 180_000);

  it('GET /runs', async () => {
    const listed = await pageAll(
      '/runs',
      'limit=100',
      inserter((i, at) => runRow(ws, pipelines[1]!, i, at), 'Run'),
      'run_id',
    );
    expectEachOnce(
      listed,
      seeded.runs.map((a) => a.id),
    );
  }, 180_000);

  it('GET /calendar: every scheduled artifact of the window, soonest first, while others are scheduled', async () => {
    const from = new Date(SCHEDULE_START - 3_600_000);
    const to = new Date(SCHEDULE_START + 61 * 86_400_000);
    const expected = artifacts.filter((a) => a.state === 'scheduled').map((a) => a.id);
    let extra = 0;
    const listed = await pageAll('/calendar', `from=${iso(from)}&to=${iso(to)}&limit=100`, async (n) => {
      // scheduled at a time already listed, and at one still to come
      const row = (at: Date) => ({ ...artifactRow(ws, pipelines[0]!, 2 + 5 * (N + extra++)), scheduledAt: at });
      await insertRows(s.running.deps.db, 'Artifact', [row(scheduledAt(n * 50)), row(scheduledAt(N - 2 * n))]);
    });
    expectEachOnce(listed, expected);
    // soonest first
    const times = new Map(artifacts.map((a) => [a.id, a.scheduledAt?.getTime() ?? 0]));
    const known = listed.filter((id) => times.has(id)).map((id) => times.get(id)!);
    expect(known).toEqual([...known].sort((a, b) => a - b));
  }, 180_000);
});

describe('filters', () => {
  const expectIds = (listed: string[], expected: string[]) => expect([...listed].sort()).toEqual([...expected].sort());

  it('artifacts: pipeline, several states (repeated parameter), updated since, combined', async () => {
    const since = new Date(BASE + 5_000 * 1000);
    const q = `pipeline_id=${pipelines[1]}&state=review&state=scheduled&updated_since=${iso(since)}&limit=100`;
    const expected = artifacts.filter((a) => a.pipelineId === pipelines[1] && ['review', 'scheduled'].includes(a.state) && a.updatedAt >= since);
    expect(expected.length).toBeGreaterThan(100);
    expectIds(
      await pageAll('/artifacts', q),
      expected.map((a) => a.id),
    );
  }, 120_000);

  it('artifacts: scheduled in [after, before), with a state', async () => {
    const after = scheduledAt(1000);
    const before = scheduledAt(3001);
    const q = `scheduled_after=${iso(after)}&scheduled_before=${iso(before)}&state=scheduled&limit=50`;
    const expected = artifacts.filter((a) => a.scheduledAt && a.scheduledAt >= after && a.scheduledAt < before);
    expect(expected.length).toBeGreaterThan(50);
    expectIds(
      await pageAll('/artifacts', q),
      expected.map((a) => a.id),
    );
  });

  it('runs: several statuses and kinds, and a pipeline', async () => {
    const r = seeded.runs.filter(
      ({ i }) => ['failed', 'queued'].includes(RUN_STATUSES[Math.floor(i / 4) % 4]!) && RUN_KINDS[i % 4] === 'publish' && i % 2 === 0,
    );
    expect(r.length).toBeGreaterThan(100);
    const listed = await pageAll('/runs', `status=failed&status=queued&kind=publish&pipeline_id=${pipelines[0]}&limit=100`, undefined, 'run_id');
    expectIds(
      listed,
      r.map((x) => x.id),
    );
  });

  it('a filtered page shows only matching items, and the typed client sends repeated parameters', async () => {
    const client = s.client();
    const first = await unwrap(client.GET(`${V1}/artifacts`, { params: { query: { state: ['ready', 'published'], limit: 100 } } }));
    expect(first.data.length).toBe(100);
    expect(new Set(first.data.map((a) => a.state))).toEqual(new Set(['ready', 'published']));
    const runs = await client.paginate(`${V1}/runs`, { params: { query: { kind: ['ingest'], status: ['succeeded'] } } }).toArray({ limit: 250 });
    expect(runs.length).toBe(250);
    expect(runs.every((r) => r.kind === 'ingest' && r.status === 'succeeded')).toBe(true);
  });

  it('refuses an unknown state, a window that ends before it starts, and a page size out of 1..100', async () => {
    for (const [path, q, field] of [
      ['/artifacts', 'state=review&state=sent', 'state'],
      ['/artifacts', 'scheduled_after=2027-01-02T00%3A00%3A00Z&scheduled_before=2027-01-01T00%3A00%3A00Z', 'query.scheduled_before'],
      ['/artifacts', 'updated_since=yesterday', 'updated_since'],
      ['/artifacts', 'updated_since=0000-12-31T00%3A00%3A00Z', 'query.updated_since'],
      ['/calendar', 'from=2027-01-01T00%3A00%3A00Z&to=2027-01-01T00%3A00%3A00Z', 'query.to'],
      ['/calendar', 'from=2027-01-01T00%3A00%3A00Z&to=2027-04-04T00%3A00%3A00Z', 'query.to'],
      ['/runs', 'kind=deploy', 'kind'],
      ['/pipelines', 'limit=0', 'limit'],
      ['/accounts', 'limit=101', 'limit'],
    ] as const) {
      const r = await page(path, q);
      expect([r.status, r.json.error?.code], `${path}?${q}`).toEqual([422, 'validation_failed']);
      expect(r.json.error?.message).toContain(field);
    }
  });
});

describe('cursors', () => {
  it('a tampered cursor, one of another list, of other filters or of another workspace is 400 bad_request', async () => {
    const first = await page('/artifacts', 'state=review&limit=5');
    const cursor = first.json.next_cursor!;
    const pipelinesCursor = (await page('/pipelines', 'limit=5')).json.next_cursor!;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const [path, q, token] of [
      ['/artifacts', `state=review&cursor=${tampered}`, s.token],
      ['/artifacts', `state=review&cursor=${pipelinesCursor}`, s.token],
      ['/pipelines', `cursor=${cursor}`, s.token],
      ['/artifacts', `state=ready&cursor=${cursor}`, s.token],
      ['/artifacts', `state=review&cursor=${cursor}`, otherToken],
      ['/artifacts', 'cursor=not-a-cursor', s.token],
    ] as const) {
      const r = await page(path, q, token);
      expect([r.status, r.json.error?.code], `${path}?${q}`).toEqual([400, 'bad_request']);
    }
    // the same cursor with the same filters (states in another order) goes on
    expect((await page('/artifacts', `state=review&cursor=${cursor}&limit=5`)).status).toBe(200);
  });
});

describe('workspaces', () => {
  it('another workspace sees exactly its own rows, in every list and the calendar', async () => {
    for (const [path, list, key] of [
      ['/pipelines', 'pipelines', 'id'],
      ['/artifacts', 'artifacts', 'id'],
      ['/accounts', 'accounts', 'id'],
      ['/imports', 'imports', 'id'],
      ['/runs', 'runs', 'run_id'],
    ] as const) {
      const r = await page(path, 'limit=100', otherToken);
      expect(r.status).toBe(200);
      expect(r.json.data.map((d) => String(d[key])).sort(), path).toEqual([...theirs[list]].sort());
    }
    // Their scheduled artifact (index 2) is at the start of the window; ours at the same time are not theirs to see.
    const cal = await page('/calendar', `from=${iso(new Date(SCHEDULE_START))}&to=${iso(new Date(SCHEDULE_START + 86_400_000))}&limit=100`, otherToken);
    expect(cal.json.data.map((a) => a.id)).toEqual([theirs.artifacts[0]]);
    const ours = await page('/calendar', `from=${iso(new Date(SCHEDULE_START))}&to=${iso(new Date(SCHEDULE_START + 86_400_000))}&limit=100`);
    expect(ours.json.data.length).toBeGreaterThan(0);
    expect(ours.json.data.map((a) => a.id)).not.toContain(theirs.artifacts[0]);
  });
});

describe('accounts', () => {
  it('never shows a credential, a secondary credential or a proxy address (raw bytes), and shows each account’s health', async () => {
    await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    await connect(s, { platform: 'rss', handle: feed.url, auth_material: '', proxy_url: proxy.url });
    const exportText = archiveFixture('mastodon-outbox.json');
    await connect(s, { platform: 'archive', handle: 'my-export-lists', auth_material: exportText, secondary_auth: 'mastodon' });
    let raw = '';
    let cursor: string | null = null;
    do {
      const r = await page('/accounts', `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      raw += r.text;
      cursor = r.json.next_cursor;
    } while (cursor);
    expect(raw.length).toBeGreaterThan(N * 100);
    for (const secret of [
      SECRET,
      'PROXY-PASSWORD',
      'proxyuser',
      mastodon.state.token,
      proxy.url,
      proxy.host,
      exportText.slice(0, 40),
      '"credentials"',
      'auth_material',
      'secondary_auth',
      'proxy_url',
    ]) {
      expect(raw.includes(secret), secret).toBe(false);
    }
    const first = (await page('/accounts', 'limit=3')).json.data;
    expect(first.map((a) => a.platform)).toEqual(['archive', 'rss', 'mastodon']);
    expect(first[1]).toMatchObject({ has_proxy: true, status: 'active', last_probe_error: null });
    const dead = (await pageAll('/accounts', 'limit=100')).length;
    expect(dead).toBeGreaterThan(N);
    const all = await unwrap(s.client().GET(`${V1}/accounts`, { params: { query: { limit: 100 } } }));
    const deadOne = all.data.find((a) => a.status === 'dead');
    expect(deadOne?.last_probe_error).toMatch(/401/);
  }, 180_000);
});
