// Issue 30: a date outside the years 0001–9999 in an export (`+275760-09-13T00:00:00Z`, the last
// day JavaScript knows; `+010000-01-01T00:00:00Z`; `-000001-01-01T00:00:00Z`) answered 500 after
// storing the import, and every list of the workspace answered 500 from then on. Now such a date is
// unread where it is parsed: the post is kept, flagged `unread_date`, dated by its first ingest;
// the import's summary counts it and never carries it. A value stored before (by an older
// version) is answered as an unread date, and the startup migration repairs the rows. On both
// databases.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newIdempotencyKey } from '../../clients/typescript/src/index.js';
import { blueskyRepo } from '../support/exports-formats.js';
import { fileOf, mastodonArchive, type ExpectedPost } from '../support/exports.js';
import { ingest, rawRequest, V1 } from '../support/api.js';
import { findRow, findRows, insertRow } from '../support/rows.js';
import { startTestServer, type TestServer } from '../support/server.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ODD = ['+275760-09-13T00:00:00Z', '+010000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z'];
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const MIGRATION = '20261127230000_dates_unrepresentable_repair';

let s: TestServer;
/** Set once the repair test restarted the server on the same database: then the database is dropped here. */
let restarted = false;
beforeAll(async () => void (s = await startTestServer()));
afterAll(async () => {
  await s?.stop();
  if (restarted) await s.db.drop();
});

async function upload(body: Buffer, handle: string, contentType: string) {
  const qs = new URLSearchParams({ idempotency_key: newIdempotencyKey(), handle });
  const r = await rawRequest(s, `${V1}/imports?${qs}`, { method: 'POST', headers: { 'Content-Type': contentType }, body: new Uint8Array(body) });
  return { status: r.res.status, json: r.body as Record<string, any> };
}

/** Every list and page of the workspace that showed the poison, answered 200 (the server validates each answer against the contract). */
async function everythingAnswers(pipelineId: string) {
  const c = s.client();
  const imports = await c.GET(`${V1}/imports`, { params: { query: { limit: 100 } } });
  expect(imports.response.status, JSON.stringify(imports.error)).toBe(200);
  const posts = await c.GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: pipelineId }, query: { limit: 100 } } });
  expect(posts.response.status, JSON.stringify(posts.error)).toBe(200);
  const inbox = await c.GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pipelineId } } });
  expect(inbox.response.status, JSON.stringify(inbox.error)).toBe(200);
  return { imports: imports.data!.data, posts: posts.data!.data, inbox: inbox.data! };
}

const span = (posts: Map<string, ExpectedPost>) => {
  const read = [...posts.values()].filter((p) => p.unreadDate === undefined).map((p) => new Date(p.publishedAt).toISOString());
  return { first_post_at: read.sort()[0], last_post_at: read.sort().at(-1) };
};

async function checkImported(handle: string, expected: Map<string, ExpectedPost>, summary: Record<string, any>) {
  // The summary counts the posts whose date was unread and its span is that of the dates read.
  expect(summary).toMatchObject({ posts: expected.size, unread_dates: ODD.length, skipped: { unreadable: 0 }, ...span(expected) });
  const { pipeline_id } = await ingest(s, handle);
  const { imports, posts, inbox } = await everythingAnswers(pipeline_id);
  expect(imports.find((i) => i.handle === handle)?.summary).toEqual(summary);
  expect(posts).toHaveLength(expected.size);
  const flagged = posts.filter((p) => p.unread_date !== null);
  // Each odd post kept, with its words, its date as written, and the time of its ingest.
  expect(flagged.map((p) => p.unread_date).sort()).toEqual([...ODD].sort());
  for (const p of flagged) {
    const e = [...expected.values()].find((x) => x.unreadDate === p.unread_date)!;
    expect(p.text).toBe(e.text);
    expect(p.published_at).toMatch(RFC3339);
    expect(Math.abs(Date.parse(p.published_at) - Date.parse(p.created_at))).toBeLessThan(3_600_000);
  }
  for (const p of posts.filter((x) => x.unread_date === null))
    expect(p.published_at).toBe(new Date(expected.get(p.url!)?.publishedAt ?? p.published_at).toISOString());
  expect(inbox.data.every((i) => RFC3339.test(i.created_at))).toBe(true);
  expect(inbox.data.filter((i) => flagged.some((p) => p.id === i.post_id)).length).toBeGreaterThan(0);
  // A second ingest keeps the first one's time: the post does not move.
  const again = await ingest(s, handle);
  const after = (await everythingAnswers(again.pipeline_id)).posts.filter((p) => p.unread_date !== null);
  expect(after.map((p) => [p.id, p.published_at]).sort()).toEqual(flagged.map((p) => [p.id, p.published_at]).sort());
  return pipeline_id;
}

describe('an export with dates outside the years 0001–9999', () => {
  it('a Mastodon outbox: imported (201), the posts kept and flagged, every list answers 200', async () => {
    const g = mastodonArchive({ posts: 40, dates: new Map([8, 9, 10].map((i, n) => [i, ODD[n]!])) });
    const r = await upload(fileOf(g, 'outbox.json'), 'ada-odd-dates', 'application/json');
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    // The posts are keyed by their Mastodon id; the API shows their web address.
    const byUrl = new Map([...g.publicPosts.values()].map((e) => [`https://mastodon.example/@ada/${e.externalId.split('/').pop()}`, e]));
    await checkImported('ada-odd-dates', byUrl, r.json.summary);
  });

  it('a Bluesky repository (.car): imported (201), the posts kept and flagged, every list answers 200', async () => {
    const g = await blueskyRepo({ posts: 40, dates: new Map([11, 13, 14].map((i, n) => [i, ODD[n]!])) });
    const r = await upload((await g.write())!, 'ada-bsky-odd', 'application/vnd.ipld.car');
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const byUrl = new Map([...g.publicPosts.values()].map((e) => [`https://bsky.app/profile/${g.did}/post/${e.externalId.split('/').pop()}`, e]));
    await checkImported('ada-bsky-odd', byUrl, r.json.summary);
  });

  it('an export whose every date is unreadable: imported, first and last dates null', async () => {
    const g = mastodonArchive({ posts: 12, dates: new Map(Array.from({ length: 12 }, (_, i) => [i, ODD[i % 3]!])) });
    const r = await upload(fileOf(g, 'outbox.json'), 'ada-no-dates', 'application/json');
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json.summary).toMatchObject({ posts: g.publicPosts.size, unread_dates: g.publicPosts.size, first_post_at: null, last_post_at: null });
  });
});

describe('a workspace that already holds such a value (stored by an older version)', () => {
  const db = () => s.running.deps.db;
  const sqlite = () => s.db.kind === 'sqlite';
  /** A stored date as an older version wrote it: SQLite keeps JavaScript's text, PostgreSQL's `timestamp` a year it cannot give back. */
  const poison = ['+275760-09-13T00:00:00.000+00:00', '+010000-01-01T00:00:00.000+00:00', '-000001-01-01T00:00:00.000+00:00'];
  const pgPoison = ['10000-01-01 00:00:00', '275760-09-13 00:00:00', '0002-01-01 00:00:00 BC'];
  let pipelineId: string;
  let importId: string;
  let importedPosts: number;
  /** A poll closing at a time no answer can carry; an option's title that looks like one stays as written. */
  const poll = { multiple: false, options: [{ title: '"closes_at":"+1" is text', votes: 2 }], closes_at: '+275760-09-13T00:00:00.000Z', voters: 2 };

  beforeAll(async () => {
    const g = mastodonArchive({ posts: 20 });
    const r = await upload(fileOf(g, 'outbox.json'), 'ada-poisoned', 'application/json');
    expect(r.status).toBe(201);
    importId = r.json.id;
    importedPosts = r.json.summary.posts;
    pipelineId = (await ingest(s, 'ada-poisoned')).pipeline_id;
    const { workspaceId } = await findRow(db(), 'Pipeline', { id: pipelineId });
    const values = sqlite() ? poison : pgPoison;
    for (const [n, at] of values.entries()) {
      await insertRow(db(), 'SourcePost', {
        id: `post_poison${n}`,
        workspaceId,
        pipelineId,
        platform: 'archive',
        externalId: `poison-${n}`,
        text: `Poisoned ${n}: words the author wrote`,
        publishedAt: new Date('2026-11-01T00:00:00Z'),
        poll: JSON.stringify(poll),
        createdAt: new Date('2026-11-02T00:00:00Z'),
        updatedAt: new Date('2026-11-02T00:00:00Z'),
      });
      // The value itself, as text: the store would refuse to write it.
      await sql`UPDATE "SourcePost" SET "publishedAt" = ${sqlite() ? at : sql`${at}::timestamp`} WHERE "id" = ${`post_poison${n}`}`.execute(db());
    }
    const { summary } = await findRow(db(), 'Import', { id: importId });
    const bad = { ...JSON.parse(summary), first_post_at: '-000001-01-01T00:00:00.000Z', last_post_at: '+275760-09-13T00:00:00.000Z' };
    delete bad.unread_dates;
    await sql`UPDATE "Import" SET "summary" = ${JSON.stringify(bad)} WHERE "id" = ${importId}`.execute(db());
  });

  it('is answered as an unread date: lists, posts and the inbox answer 200', async () => {
    const { imports, posts, inbox } = await everythingAnswers(pipelineId);
    expect(imports.find((i) => i.id === importId)?.summary).toMatchObject({ first_post_at: null, last_post_at: null, unread_dates: 0 });
    const poisoned = posts.filter((p) => p.text.startsWith('Poisoned'));
    expect(poisoned).toHaveLength(3);
    for (const p of poisoned) expect(p.published_at).toBe('2026-11-02T00:00:00.000Z');
    for (const p of poisoned) expect(p.poll).toEqual({ ...poll, closes_at: null });
    // The stored instant as JavaScript writes it (PostgreSQL's `10000-01-01 00:00:00` and `0002-… BC` read as such by the store).
    expect(poisoned.map((p) => p.unread_date).sort()).toEqual(['+010000-01-01T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '-000001-01-01T00:00:00.000Z']);
    expect(inbox.data.every((i) => RFC3339.test(i.created_at))).toBe(true);
  });

  it('is repaired by the migration when the server starts: the date becomes unread_date, published_at the first ingest', async () => {
    // The database as an older version left it: the repair not applied yet.
    await sql`DELETE FROM "_prisma_migrations" WHERE "migration_name" = ${MIGRATION}`.execute(db());
    const dbHandle = s.db;
    await s.running.stop();
    restarted = true;
    s = await startTestServer({ db: dbHandle });
    const applied = await sql<{
      n: number;
    }>`SELECT count(*) AS n FROM "_prisma_migrations" WHERE "migration_name" = ${MIGRATION} AND "finished_at" IS NOT NULL`.execute(db());
    expect(Number(applied.rows[0]!.n)).toBe(1);
    const rows = await findRows(db(), 'SourcePost', { pipelineId }, 'id');
    const poisoned = rows.filter((r) => r.id.startsWith('post_poison'));
    expect(poisoned.map((r) => r.publishedAt.toISOString())).toEqual(Array(3).fill('2026-11-02T00:00:00.000Z'));
    const unread = poisoned.map((r) => r.unreadDate);
    expect(unread).toEqual(sqlite() ? poison : pgPoison);
    for (const r of poisoned) expect(JSON.parse(r.poll!)).toEqual({ ...poll, closes_at: null });
    // The other posts are untouched.
    for (const r of rows.filter((x) => !x.id.startsWith('post_poison'))) expect(r.unreadDate).toBeNull();
    const { summary } = await findRow(db(), 'Import', { id: importId });
    expect(JSON.parse(summary)).toMatchObject({ first_post_at: null, last_post_at: null, posts: importedPosts });
    await everythingAnswers(pipelineId);
  });
});
