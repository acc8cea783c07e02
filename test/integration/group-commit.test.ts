// Group commit (server/store/group-commit.ts): the writes of concurrent requests go into one
// transaction. Every caller gets its own result or its own error; a failing write costs the others
// nothing; idempotency keeps its guarantees (the stored answer commits with the work, a replay
// never does the work twice); what was answered is committed (read back through a connection of
// its own). On SQLite, and on PostgreSQL in the PostgreSQL pass. No timing in these tests: a
// batch is what arrives in the same turn of the event loop, which `Promise.all` of calls made in
// one tick is.
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.js';
import { claim, type ClaimStore } from '../../server/services/idempotency.js';
import type { ServiceDeps } from '../../server/services/context.js';
import { draftFromPost, newArtifactFor } from '../../server/services/drafting.js';
import { createFromIntent } from '../../server/services/pipelines.js';
import { isUniqueViolation, openDatabase, sqliteUrl, type Db } from '../../server/store/database.js';
import * as drafts from '../../server/store/drafts.js';
import { groupCommit, groupCommitStats } from '../../server/store/group-commit.js';
import { completeKey } from '../../server/store/idempotency.js';
import { finishRun, insertRun } from '../../server/store/runs.js';
import { loadPipeline, loadPosts, runReadStatements } from '../../server/store/run-reads.js';
import { recordEvent } from '../../server/services/events.js';
import { countRows, findRows } from '../support/rows.js';
import { seedPosts } from '../support/seed.js';
import { serverSuite } from '../support/suite.js';
import { V1 } from '../support/api.js';
import { SCOPES } from '../../server/services/tokens.js';

const t = serverSuite();
let n = 0;

async function aPost() {
  const deps = t.s.running.deps;
  const caller = { workspaceId: t.ws, tokenId: 'tok_group', scopes: SCOPES };
  const { pipeline_id } = await createFromIntent(deps, caller, {
    handle: `group-commit-${++n}`,
    intent: 'Release notes, in a thread 🧵 — 发布说明 · ملاحظات الإصدار',
  });
  const [postId] = await seedPosts(deps, { workspaceId: t.ws, pipelineId: pipeline_id, count: 1 });
  return { deps, caller, postId: postId! };
}

/** A `Setting` row written by `groupCommit`: a small change of its own per caller. */
function writeSetting(key: string, value: string) {
  return groupCommit(t.s.running.deps.db, 'requests', async (tx) => {
    await tx.insertInto('Setting').values({ key, value }).execute();
    return `${key}=${value}`;
  });
}

describe('groupCommit', () => {
  it('commits changes queued in the same tick in one transaction, each caller with its own result', async () => {
    const before = { ...groupCommitStats };
    const keys = Array.from({ length: 25 }, (_, i) => `gc-${++n}-${i}`);
    const results = await Promise.all(keys.map((k, i) => writeSetting(k, `valeur ${i} — 值 ${i} 👩🏽‍💻`)));
    expect(results).toEqual(keys.map((k, i) => `${k}=valeur ${i} — 值 ${i} 👩🏽‍💻`));
    // One batch for all of them (the other parts of the server may have queued changes too).
    expect(groupCommitStats.batches - before.batches).toBeLessThanOrEqual(2);
    expect(groupCommitStats.fallbacks).toBe(before.fallbacks);
    for (const k of keys) expect(await countRows(t.s.running.deps.db, 'Setting', { key: k })).toBe(1);
  });

  it('one failing change loses none of the others: the batch is retried one by one, and only the failing caller gets the error', async () => {
    const before = { ...groupCommitStats };
    const keys = Array.from({ length: 10 }, (_, i) => `gc-fail-${++n}-${i}`);
    const settled = await Promise.allSettled(
      keys.map((k, i) =>
        i === 4
          ? groupCommit(t.s.running.deps.db, 'requests', async (tx) => {
              await tx.insertInto('Setting').values({ key: k, value: 'written, then rolled back' }).execute();
              throw new Error(`change ${i} fails after writing`);
            })
          : writeSetting(k, `v${i}`),
      ),
    );
    expect(settled.map((r) => r.status)).toEqual(keys.map((_, i) => (i === 4 ? 'rejected' : 'fulfilled')));
    expect((settled[4] as PromiseRejectedResult).reason).toEqual(new Error('change 4 fails after writing'));
    expect(groupCommitStats.fallbacks).toBeGreaterThan(before.fallbacks);
    for (const [i, k] of keys.entries()) expect(await countRows(t.s.running.deps.db, 'Setting', { key: k })).toBe(i === 4 ? 0 : 1);
  });

  it('a change the database refuses (a duplicate key) fails alone', async () => {
    const dup = `gc-dup-${++n}`;
    const settled = await Promise.allSettled([
      writeSetting(`gc-a-${n}`, 'a'),
      writeSetting(dup, 'first'),
      writeSetting(dup, 'second'),
      writeSetting(`gc-b-${n}`, 'b'),
    ]);
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const rows = await t.s.running.deps.db.selectFrom('Setting').select('value').where('key', '=', dup).execute();
    expect(rows).toEqual([{ value: 'first' }]);
  });
});

describe('drafts created together', () => {
  const draft = (postId: string, key: string) =>
    fetch(`${t.s.url}${V1}/posts/${postId}/draft`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.s.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ idempotency_key: key }),
    });

  it('are all committed with their own answers, which replay as given', async () => {
    const { deps, postId } = await aPost();
    const keys = Array.from({ length: 30 }, (_, i) => `group-draft-${++n}-${i}`);
    const answers = await Promise.all(
      keys.map(async (k) => {
        const res = await draft(postId, k);
        expect(res.status).toBe(202);
        return (await res.json()) as { run_id: string; artifact_id: string };
      }),
    );
    expect(new Set(answers.map((a) => a.artifact_id)).size).toBe(30);
    expect(new Set(answers.map((a) => a.run_id)).size).toBe(30);
    expect(await countRows(deps.db, 'Artifact', { sourcePostId: postId })).toBe(30);
    const post = await deps.db.selectFrom('SourcePost').select('artifactCount').where('id', '=', postId).executeTakeFirstOrThrow();
    expect(post.artifactCount).toBe(30);
    // Each key replays its own answer, and does no work again.
    const replays = await Promise.all(
      keys.map(async (k) => {
        const res = await draft(postId, k);
        expect(res.headers.get('idempotent-replayed')).toBe('true');
        return res.json();
      }),
    );
    expect(replays).toEqual(answers);
    expect(await countRows(deps.db, 'Artifact', { sourcePostId: postId })).toBe(30);
  });

  it('a replay sent while its key is being worked on, beside other creates, never does the work twice', async () => {
    const { deps, postId } = await aPost();
    const same = `group-same-key-${++n}-${Date.now()}`;
    const responses = await Promise.all([
      ...Array.from({ length: 6 }, () => draft(postId, same)),
      ...Array.from({ length: 10 }, (_, i) => draft(postId, `group-other-${n}-${i}`)),
    ]);
    const forSame = responses.slice(0, 6);
    // One did the work; each of the others was told it is in progress (409) or got its answer.
    const statuses = forSame.map((r) => r.status);
    expect(statuses.filter((s) => s === 202).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 202 || s === 409)).toBe(true);
    expect(responses.slice(6).map((r) => r.status)).toEqual(Array<number>(10).fill(202));
    const bodies = await Promise.all(forSame.filter((r) => r.status === 202).map((r) => r.json()));
    for (const b of bodies) expect(b).toEqual(bodies[0]);
    expect(await countRows(deps.db, 'Artifact', { sourcePostId: postId })).toBe(11);
    expect(await (await draft(postId, same)).json()).toEqual(bodies[0]);
  });

  it('a draft whose transaction fails in a batch stores no answer and leaves no artifact; the others of the batch keep theirs', async () => {
    const { deps, caller, postId } = await aPost();
    const store: ClaimStore = { db: deps.db, provider: deps.provider, clock: deps.clock };
    const keys = Array.from({ length: 5 }, (_, i) => ({ workspaceId: t.ws, operation: 'draftFromPost', key: `group-claim-${++n}-${i}`, hash: 'h' }));
    const claims = await Promise.all(keys.map((k) => claim(store, k)));
    const settled = await Promise.allSettled(
      claims.map((c, i) => {
        if (c.kind !== 'claimed') throw new Error('not claimed');
        return draftFromPost(deps, caller, postId, { idempotency_key: keys[i]!.key }, async (tx, a) => {
          await c.complete({ status: 202, body: JSON.stringify(a) }, tx);
          if (i === 2) throw new Error('the third draft fails after storing its answer');
        });
      }),
    );
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(await countRows(deps.db, 'Artifact', { sourcePostId: postId })).toBe(4);
    for (const [i, k] of keys.entries()) {
      const again = await claim(store, k).catch((e: unknown) => {
        if (e instanceof AppError) return e.status;
        throw e;
      });
      if (i === 2)
        expect(again).toBe(409); // still a claim in progress: no answer was stored
      else expect(again).toEqual({ kind: 'replay', reply: { status: 202, body: JSON.stringify((settled[i] as PromiseFulfilledResult<unknown>).value) } });
    }
  });

  it('what was answered is committed: read back through a connection of its own', async () => {
    const { postId } = await aPost();
    const answers = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => (await draft(postId, `group-durable-${++n}-${i}`)).json() as Promise<{ artifact_id: string }>),
    );
    const ids = answers.map((a) => a.artifact_id);
    let found: number;
    if (t.s.running.deps.provider === 'sqlite') {
      const other = new Sqlite(sqliteUrl(t.s.config.dataDir).slice('file:'.length), { readonly: true });
      try {
        found = (other.prepare(`SELECT count(*) AS n FROM Artifact WHERE id IN (${ids.map(() => '?').join(',')})`).get(...ids) as { n: number }).n;
      } finally {
        other.close();
      }
    } else {
      const other = new pg.Client({ connectionString: t.s.db.databaseUrl! });
      await other.connect();
      try {
        found = Number((await other.query('SELECT count(*) AS n FROM "Artifact" WHERE id = ANY($1)', [ids])).rows[0].n);
      } finally {
        await other.end();
      }
    }
    expect(found).toBe(12);
  });
});

/**
 * The store's Kysely instance with a counter of the writes it sends (every statement but a
 * SELECT; BEGIN and COMMIT are the driver's, not counted): its own group-commit lanes, the same
 * connections.
 */
function countingDb(db: Db) {
  let writes = 0;
  const counted = db.withPlugin({
    transformQuery(args) {
      if (args.node.kind !== 'SelectQueryNode') writes++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { db: counted, writes: () => writes };
}

describe('writes batched per kind', () => {
  /** A reserved draft as draftFromPost makes it: the artifact, its run, the stored answer. */
  function reserve(deps: ServiceDeps, db: Db, postId: string, pipelineId: string, key: string, opts: { artifactId?: string } = {}) {
    const artifact = {
      ...newArtifactFor(deps, { workspaceId: t.ws, pipelineId, sources: [postId], parent: null, visibility: 'public' }),
      ...(opts.artifactId ? { id: opts.artifactId } : {}),
    };
    return drafts.reserveArtifact(db, artifact, async (tx, a) => {
      const run = await insertRun(tx, {
        id: deps.ids.id('run'),
        workspaceId: t.ws,
        pipelineId,
        kind: 'draft',
        input: { artifact_id: a.id },
        now: deps.clock.now(),
      });
      const answer = { run_id: run.id, artifact_id: a.id };
      await completeKey(tx, { workspaceId: t.ws, operation: 'draftFromPost', key, status: 202, body: JSON.stringify(answer) });
      return answer;
    });
  }

  it('a batch of creates costs the same few statements whatever its size', async () => {
    const { deps, postId } = await aPost();
    const post = await deps.db.selectFrom('SourcePost').select('pipelineId').where('id', '=', postId).executeTakeFirstOrThrow();
    const store = (db: Db): ClaimStore => ({ db, provider: deps.provider, clock: deps.clock });
    const writesFor = async (size: number) => {
      const c = countingDb(deps.db);
      const keys = Array.from({ length: size }, (_, i) => ({ workspaceId: t.ws, operation: 'draftFromPost', key: `batched-${++n}-${i}`, hash: 'h' }));
      const claims = await Promise.all(keys.map((k) => claim(store(c.db), k)));
      expect(claims.every((x) => x.kind === 'claimed')).toBe(true);
      const claimWrites = c.writes();
      const answers = await Promise.all(keys.map((k) => reserve(deps, c.db, postId, post.pipelineId, k.key)));
      return { claimWrites, reserveWrites: c.writes() - claimWrites, answers, keys: keys.map((k) => k.key) };
    };
    const small = await writesFor(3);
    const large = await writesFor(60);
    // The claims: one INSERT … ON CONFLICT DO NOTHING RETURNING. The reservations: the artifacts'
    // INSERT, their post's count, the runs' INSERT, the answers' UPDATE.
    expect(small).toMatchObject({ claimWrites: 1, reserveWrites: 4 });
    expect(large).toMatchObject({ claimWrites: 1, reserveWrites: 4 });
    // Each write is its own: 63 artifacts and runs, the post counted 63 times, each answer stored.
    const answers = [...small.answers, ...large.answers];
    expect(await countRows(deps.db, 'Artifact', { id: answers.map((a) => a.artifact_id) })).toBe(63);
    expect(await countRows(deps.db, 'Run', { id: answers.map((a) => a.run_id) })).toBe(63);
    const { artifactCount } = await deps.db.selectFrom('SourcePost').select('artifactCount').where('id', '=', postId).executeTakeFirstOrThrow();
    expect(artifactCount).toBe(63);
    const stored = await findRows(deps.db, 'IdempotencyRecord', { workspaceId: t.ws, operation: 'draftFromPost', key: [...small.keys, ...large.keys] });
    const byKey = new Map(stored.map((r) => [r.key, [r.state, r.responseStatus, JSON.parse(r.responseBody!)]]));
    expect([...small.keys, ...large.keys].map((k) => byKey.get(k))).toEqual(answers.map((a) => ['completed', 202, a]));
  });

  it('claims in one statement: fresh keys, a replay, a key twice, a key reused with another request each get their own outcome', async () => {
    const { deps } = await aPost();
    const s: ClaimStore = { db: deps.db, provider: deps.provider, clock: deps.clock };
    const key = (k: string, hash = 'h') => ({ workspaceId: t.ws, operation: 'draftFromPost', key: `${k}-${++n}`, hash });
    const done = key('claim-done');
    const first = await claim(s, done);
    if (first.kind !== 'claimed') throw new Error('not claimed');
    await first.complete({ status: 202, body: '{"artifact_id":"art_✓ 草稿 🧵"}' });
    const twice = key('claim-twice');
    const fresh = [key('claim-a'), key('claim-b'), key('claim-c')];
    const settled = await Promise.allSettled([
      claim(s, fresh[0]!),
      claim(s, done),
      claim(s, twice),
      claim(s, { ...done, hash: 'another request' }),
      claim(s, fresh[1]!),
      claim(s, twice),
      claim(s, fresh[2]!),
    ]);
    const outcome = (r: PromiseSettledResult<Awaited<ReturnType<typeof claim>>>) =>
      r.status === 'fulfilled' ? r.value.kind : `${(r.reason as { status: number }).status} ${(r.reason as { code: string }).code}`;
    expect(settled.map(outcome)).toEqual(['claimed', 'replay', 'claimed', '422 validation_failed', 'claimed', '409 state_conflict', 'claimed']);
    expect((settled[1] as PromiseFulfilledResult<{ reply: unknown }>).value.reply).toEqual({ status: 202, body: '{"artifact_id":"art_✓ 草稿 🧵"}' });
    expect(await countRows(deps.db, 'IdempotencyRecord', { key: [twice.key, ...fresh.map((k) => k.key)], state: 'in_progress' })).toBe(4);
  });

  it('a create the database refuses inside a batch fails alone: the multi-row statement is retried change by change', async () => {
    const { deps, postId } = await aPost();
    const post = await deps.db.selectFrom('SourcePost').select('pipelineId').where('id', '=', postId).executeTakeFirstOrThrow();
    const taken = await reserve(deps, deps.db, postId, post.pipelineId, `refused-first-${++n}`);
    const before = { ...groupCommitStats };
    const keys = Array.from({ length: 8 }, (_, i) => `refused-${n}-${i}`);
    // The fourth reuses an artifact id that exists: its INSERT fails, and with it the batch's one INSERT.
    const settled = await Promise.allSettled(
      keys.map((k, i) => reserve(deps, deps.db, postId, post.pipelineId, k, i === 3 ? { artifactId: taken.artifact_id } : {})),
    );
    expect(settled.map((r) => r.status)).toEqual(keys.map((_, i) => (i === 3 ? 'rejected' : 'fulfilled')));
    expect(isUniqueViolation((settled[3] as PromiseRejectedResult).reason)).toBe(true);
    expect(groupCommitStats.fallbacks).toBeGreaterThan(before.fallbacks);
    const made = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(await countRows(deps.db, 'Artifact', { sourcePostId: postId })).toBe(8);
    expect(await countRows(deps.db, 'Run', { id: made.map((a) => a.run_id) })).toBe(7);
    const { artifactCount } = await deps.db.selectFrom('SourcePost').select('artifactCount').where('id', '=', postId).executeTakeFirstOrThrow();
    expect(artifactCount).toBe(8);
  });
});

describe("the runs' writes batched per kind", () => {
  it('texts and finishes of a batch: one statement each on PostgreSQL, and each run and artifact its own outcome', async () => {
    const { deps, postId } = await aPost();
    const { pipelineId } = await deps.db.selectFrom('SourcePost').select('pipelineId').where('id', '=', postId).executeTakeFirstOrThrow();
    const pg = deps.provider === 'postgresql';
    // Reserved drafts whose runs no worker takes (due next year), then held by a worker of this test.
    const made = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const a = await drafts.reserveArtifact(
          deps.db,
          newArtifactFor(deps, { workspaceId: t.ws, pipelineId, sources: [postId], parent: null, visibility: 'public' }),
          async (_tx, row) => row,
        );
        const run = await insertRun(deps.db, {
          id: deps.ids.id('run'),
          workspaceId: t.ws,
          pipelineId,
          kind: 'draft',
          input: { artifact_id: a.id },
          now: deps.clock.now(),
          runAfter: new Date(Date.now() + 365 * 86_400_000),
        });
        return { artifactId: a.id, runId: run.id };
      }),
    );
    await deps.db
      .updateTable('Run')
      .set({ status: 'running', lockedBy: 'wrk_batched' })
      .where(
        'id',
        'in',
        made.map((m) => m.runId),
      )
      .execute();
    // The third artifact is discarded before its text arrives.
    await drafts.discardUnwritten(deps.db, { id: made[2]!.artifactId, now: deps.clock.now() });

    const texts = countingDb(deps.db);
    const written = await Promise.all(
      made.map((m, i) =>
        drafts.writeDraft(texts.db, deps.provider, { id: m.artifactId, text: `Texte ${i} — 草稿 ${i} 👩🏽‍💻 مسودة`, now: deps.clock.now() }, (tx, row) =>
          recordEvent(tx, deps, t.ws, 'riff.ready', { riff_id: row.id, source_post_id: postId, pipeline_id: pipelineId }).then(() => undefined),
        ),
      ),
    );
    expect(written.map((r) => r?.state ?? null)).toEqual(['review', 'review', null, 'review', 'review', 'review']);
    expect(written.map((r) => r?.text ?? null)).toEqual(made.map((_, i) => (i === 2 ? null : `Texte ${i} — 草稿 ${i} 👩🏽‍💻 مسودة`)));
    expect(await countRows(deps.db, 'Event', { type: 'riff.ready', workspaceId: t.ws })).toBeGreaterThanOrEqual(5);
    // PostgreSQL: the texts' UPDATE, the outbox lock, the events' INSERT. SQLite: an UPDATE each (in process), the events' INSERT.
    expect(texts.writes()).toBe(pg ? 3 : 7);

    const finishes = countingDb(deps.db);
    const finished = await Promise.all(
      made.map((m, i) =>
        finishRun(finishes.db, deps.provider, {
          id: m.runId,
          // The fifth is no longer this worker's: its finish must write nothing.
          workerId: i === 4 ? 'wrk_someone_else' : 'wrk_batched',
          now: deps.clock.now(),
          ...(i % 2
            ? { status: 'failed' as const, errorCode: 'writer_refused', errorMessage: `Refusé ${i} — 拒绝`, errorUpstreamStatus: 400 + i }
            : { status: 'succeeded' as const, output: { artifact_id: m.artifactId, written: true } }),
        }),
      ),
    );
    expect(finished).toEqual([true, true, true, true, false, true]);
    expect(finishes.writes()).toBe(pg ? 1 : 6);
    const runs = await findRows(deps.db, 'Run', { id: made.map((m) => m.runId) });
    const byId = new Map(runs.map((r) => [r.id, r]));
    expect(
      made.map((m) => {
        const r = byId.get(m.runId)!;
        return [r.status, r.lockedBy, r.errorCode, r.errorUpstreamStatus, r.output && JSON.parse(r.output)];
      }),
    ).toEqual(
      made.map((m, i) =>
        i === 4
          ? ['running', 'wrk_batched', null, null, null]
          : i % 2
            ? ['failed', null, 'writer_refused', 400 + i, null]
            : ['succeeded', null, null, null, { artifact_id: m.artifactId, written: true }],
      ),
    );
    for (const [i, m] of made.entries()) if (i !== 4) expect(byId.get(m.runId)!.finishedAt).toBeInstanceOf(Date);
  });
});

describe("the runs' reads coalesced", () => {
  it('reads asked for in the same tick share one statement per table, each caller gets its own row, and the workspace is checked', async () => {
    const deps = t.s.running.deps;
    const caller = { workspaceId: t.ws, tokenId: 'tok_group', scopes: SCOPES };
    const { pipeline_id } = await createFromIntent(deps, caller, { handle: `run-reads-${++n}`, intent: 'Notes — 笔记 · ملاحظات 👩🏽‍💻' });
    const postIds = await seedPosts(deps, { workspaceId: t.ws, pipelineId: pipeline_id, count: 8 });
    // A connection of the test's own, whose loaders count their own statements: the server's
    // worker, drafting meanwhile, shares neither.
    const own = await openDatabase({ dataDir: t.s.config.dataDir, databaseUrl: t.s.db.databaseUrl });
    const db = own.db;
    try {
      // Eight runs reading their post at once: one statement, not eight.
      let before = runReadStatements(db);
      const posts = await Promise.all(postIds.map((id) => loadPosts(db, t.ws, [id])));
      expect(runReadStatements(db) - before).toBe(1);
      expect(posts.map((p) => p.map((r) => r.id))).toEqual(postIds.map((id) => [id]));
      before = runReadStatements(db);
      const pipelines = await Promise.all(postIds.map(() => loadPipeline(db, t.ws, pipeline_id)));
      expect(runReadStatements(db) - before).toBe(1);
      expect(pipelines.every((p) => p?.id === pipeline_id)).toBe(true);
      // Another workspace's token gets nothing, even when its read shares the statement with a good one.
      const [mine, theirs, missing] = await Promise.all([
        loadPipeline(db, t.ws, pipeline_id),
        loadPipeline(db, 'ws_someone_else', pipeline_id),
        loadPipeline(db, t.ws, 'pl_missing'),
      ]);
      expect(mine?.id).toBe(pipeline_id);
      expect(theirs).toBeNull();
      expect(missing).toBeNull();
      expect(await loadPosts(db, 'ws_someone_else', postIds)).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
