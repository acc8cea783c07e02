// The idempotency claim on a real database (SQLite, and PostgreSQL in the PostgreSQL pass): a
// fresh key is claimed; the same key is then in progress (409), replayed once completed, refused
// with another body (422); a claim whose holder died (lease over) or a record past its retention
// is taken over; a released key is free again; of concurrent claims of one key exactly one wins.
// And a reply stored in the transaction that does the work commits (or rolls back) with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.js';
import { claim, LEASE_MS, RETENTION_MS, type ClaimStore } from '../../server/services/idempotency.js';
import { draftFromPost } from '../../server/services/drafting.js';
import { createFromIntent } from '../../server/services/pipelines.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { seedPosts, workspaceOf } from '../support/seed.js';
import { countRows } from '../support/rows.js';
import { SCOPES } from '../../server/services/tokens.js';

let s: TestServer;
let store: ClaimStore;
let ws: string;
let t = Date.parse('2026-11-22T12:00:00Z');
const clock = { now: () => new Date(t) };
let n = 0;
const key = () => ({ workspaceId: ws, operation: 'createPipeline', key: `claims-test-key-${++n}-${Date.now()}`, hash: 'h1' });

beforeAll(async () => {
  s = await startTestServer();
  store = { db: s.running.deps.db, provider: s.running.deps.provider, clock };
  ws = await workspaceOf(s.running.deps, s.token);
});
afterAll(async () => {
  await s?.stop();
});

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

it('claims a fresh key; the same key is then in progress, replayed once completed, and refused with another body', async () => {
  const k = key();
  const first = await claim(store, k);
  expect(first.kind).toBe('claimed');
  const busy = await refusal(claim(store, k));
  expect([busy.status, busy.code]).toEqual([409, 'state_conflict']);
  if (first.kind !== 'claimed') throw new Error('unreachable');
  await first.complete({ status: 201, body: '{"id":"pl_1"}' });
  expect(await claim(store, k)).toEqual({ kind: 'replay', reply: { status: 201, body: '{"id":"pl_1"}' } });
  const other = await refusal(claim(store, { ...k, hash: 'h2' }));
  expect([other.status, other.code]).toEqual([422, 'validation_failed']);
});

it('takes over a claim whose holder died (lease over), and a record past its retention', async () => {
  const k = key();
  expect((await claim(store, k)).kind).toBe('claimed');
  t += LEASE_MS + 1;
  const again = await claim(store, { ...k, hash: 'h2' });
  expect(again.kind).toBe('claimed');
  if (again.kind !== 'claimed') throw new Error('unreachable');
  await again.complete({ status: 200, body: '{}' });
  expect((await claim(store, { ...k, hash: 'h2' })).kind).toBe('replay');
  t += RETENTION_MS + 1;
  expect((await claim(store, { ...k, hash: 'h3' })).kind).toBe('claimed');
});

it('frees a released key', async () => {
  const k = key();
  const c = await claim(store, k);
  if (c.kind !== 'claimed') throw new Error('not claimed');
  await c.release();
  expect((await claim(store, k)).kind).toBe('claimed');
});

it('lets exactly one of concurrent claims of a key win', async () => {
  const k = key();
  const results = await Promise.allSettled(Array.from({ length: 8 }, () => claim(store, k)));
  const won = results.filter((r) => r.status === 'fulfilled' && r.value.kind === 'claimed');
  expect(won).toHaveLength(1);
  for (const r of results) if (r.status === 'rejected') expect((r.reason as AppError).status).toBe(409);
});

describe('a reply stored in the transaction that does the work', () => {
  async function aPost() {
    const deps = s.running.deps;
    const caller = { workspaceId: ws, tokenId: 'tok_claims', scopes: SCOPES };
    const { pipeline_id } = await createFromIntent(deps, caller, { handle: `claims-archive-${++n}`, intent: 'Claims' });
    const [postId] = await seedPosts(deps, { workspaceId: ws, pipelineId: pipeline_id, count: 1 });
    return { deps, caller, postId: postId! };
  }

  it('survives a crash before the answer: after the lease, a retry replays it and the work is done once', async () => {
    const { deps, caller, postId } = await aPost();
    const k = { ...key(), operation: 'draftFromPost' };
    const c = await claim(store, k);
    if (c.kind !== 'claimed') throw new Error('not claimed');
    const answer = await draftFromPost(deps, caller, postId, { idempotency_key: k.key }, (tx, a) => c.complete({ status: 202, body: JSON.stringify(a) }, tx));
    // The process dies here, before the router would complete the claim. Past the claim's lease:
    t += LEASE_MS + 1;
    expect(await claim(store, k)).toEqual({ kind: 'replay', reply: { status: 202, body: JSON.stringify(answer) } });
    expect(await countRows(deps.db, 'Artifact', { sourcePostId: postId })).toBe(1);
  });

  it('rolls back with the work: the key is still a claim in progress, and is taken over after the lease', async () => {
    const { deps, caller, postId } = await aPost();
    const k = { ...key(), operation: 'draftFromPost' };
    const c = await claim(store, k);
    if (c.kind !== 'claimed') throw new Error('not claimed');
    const failing = draftFromPost(deps, caller, postId, { idempotency_key: k.key }, async (tx, a) => {
      await c.complete({ status: 202, body: JSON.stringify(a) }, tx);
      throw new Error('the transaction fails after storing the reply');
    });
    await expect(failing).rejects.toThrow('the transaction fails');
    expect(await countRows(deps.db, 'Artifact', { sourcePostId: postId })).toBe(0);
    const busy = await refusal(claim(store, k));
    expect(busy.status).toBe(409);
    t += LEASE_MS + 1;
    expect((await claim(store, k)).kind).toBe('claimed');
  });
});
