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
import { claim, type ClaimStore } from '../../server/http/idempotency.js';
import { draftFromPost } from '../../server/services/drafting.js';
import { createFromIntent } from '../../server/services/pipelines.js';
import { sqliteUrl } from '../../server/store/database.js';
import { groupCommit, groupCommitStats } from '../../server/store/group-commit.js';
import { countRows } from '../support/rows.js';
import { seedPosts } from '../support/seed.js';
import { serverSuite } from '../support/suite.js';
import { V1 } from '../support/api.js';

const t = serverSuite();
let n = 0;

async function aPost() {
  const deps = t.s.running.deps;
  const caller = { workspaceId: t.ws, tokenId: 'tok_group' };
  const { pipeline_id } = await createFromIntent(deps, caller, { handle: `group-commit-${++n}`, intent: 'Release notes, in a thread 🧵 — 发布说明 · ملاحظات الإصدار' });
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
    const settled = await Promise.allSettled([writeSetting(`gc-a-${n}`, 'a'), writeSetting(dup, 'first'), writeSetting(dup, 'second'), writeSetting(`gc-b-${n}`, 'b')]);
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const rows = await t.s.running.deps.db.selectFrom('Setting').select('value').where('key', '=', dup).execute();
    expect(rows).toEqual([{ value: 'first' }]);
  });
});

describe('drafts created together', () => {
  const draft = (postId: string, key: string) =>
    fetch(`${t.s.url}${V1}/posts/${postId}/draft`, { method: 'POST', headers: { Authorization: `Bearer ${t.s.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ idempotency_key: key }) });

  it('are all committed with their own answers, which replay as given', async () => {
    const { deps, postId } = await aPost();
    const keys = Array.from({ length: 30 }, (_, i) => `group-draft-${++n}-${i}`);
    const answers = await Promise.all(keys.map(async (k) => {
      const res = await draft(postId, k);
      expect(res.status).toBe(202);
      return (await res.json()) as { run_id: string; artifact_id: string };
    }));
    expect(new Set(answers.map((a) => a.artifact_id)).size).toBe(30);
    expect(new Set(answers.map((a) => a.run_id)).size).toBe(30);
    expect(await countRows(deps.db, 'Artifact', { sourcePostId: postId })).toBe(30);
    const post = await deps.db.selectFrom('SourcePost').select('artifactCount').where('id', '=', postId).executeTakeFirstOrThrow();
    expect(post.artifactCount).toBe(30);
    // Each key replays its own answer, and does no work again.
    const replays = await Promise.all(keys.map(async (k) => {
      const res = await draft(postId, k);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      return res.json();
    }));
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
      const again = await claim(store, k).catch((e: { status: number }) => e.status);
      if (i === 2) expect(again).toBe(409); // still a claim in progress: no answer was stored
      else expect(again).toEqual({ kind: 'replay', reply: { status: 202, body: JSON.stringify((settled[i] as PromiseFulfilledResult<unknown>).value) } });
    }
  });

  it('what was answered is committed: read back through a connection of its own', async () => {
    const { postId } = await aPost();
    const answers = await Promise.all(Array.from({ length: 12 }, async (_, i) => (await draft(postId, `group-durable-${++n}-${i}`)).json() as Promise<{ artifact_id: string }>));
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
