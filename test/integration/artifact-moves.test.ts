// The artifact moves (POST /artifacts/{id}/transition): approve, reopen, discard; every other move
// is 409; moves are compare-and-set; the publish rules of the spec hold around them.
import { beforeAll, describe, expect, it } from 'vitest';
import { ContentPipelineError, newIdempotencyKey, unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { refusal } from '../support/errors.js';
import { seedArtifact, seedPosts } from '../support/seed.js';
import { serverSuite } from '../support/suite.js';
import { markPublished, rawRequest, V1 } from '../support/api.js';

type To = Schemas['ArtifactTransitionRequest']['to'];
const t = serverSuite();
let pipelineId: string;
let postId: string;

beforeAll(async () => {
  // An archive pipeline: its platform does not publish upstream, so publishing only moves the state.
  const pl = await unwrap(
    t.s.client().POST(`${V1}/pipelines/from-intent`, { body: { handle: 'ada-x-archive', intent: 'moves', idempotency_key: newIdempotencyKey() } }),
  );
  pipelineId = pl.pipeline_id;
  [postId] = (await seedPosts(t.s.running.deps, { workspaceId: t.ws, pipelineId, count: 1, platform: 'archive' })) as [string];
});

const artifact = async (state: string) =>
  (await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId, postId, state, text: state === 'draft' ? '' : 'A written draft.' })).id;
const move = (id: string, to: To, key = newIdempotencyKey(), token = t.s.token) =>
  unwrap(t.s.client(token).POST(`${V1}/artifacts/{id}/transition`, { params: { path: { id } }, body: { to, idempotency_key: key } }));

describe('allowed moves', () => {
  it('approves (review → ready), reopens (ready → review) and approves again', async () => {
    const id = await artifact('review');
    expect((await move(id, 'ready')).state).toBe('ready');
    expect((await move(id, 'review')).state).toBe('review');
    const again = await move(id, 'ready');
    expect(again.state).toBe('ready');
    expect(again.text).toBe('A written draft.');
  });

  it('discards from draft, review and ready', async () => {
    for (const from of ['draft', 'review', 'ready']) {
      const id = await artifact(from);
      expect((await move(id, 'discarded')).state).toBe('discarded');
    }
  });
});

describe('refused moves', () => {
  const cases: Array<[string, To]> = [
    ['draft', 'review'], // only the drafting run writes a draft into review
    ['draft', 'ready'],
    ['review', 'review'],
    ['ready', 'ready'],
    ['discarded', 'review'],
    ['discarded', 'ready'],
    ['discarded', 'discarded'],
    ['published', 'review'],
    ['published', 'discarded'],
  ];
  for (const [from, to] of cases) {
    it(`${from} → ${to} is 409 state_conflict pointing at the artifact, and changes nothing`, async () => {
      const id = await artifact(from);
      const err = await refusal(move(id, to));
      expect(err.status).toBe(409);
      expect(err.code).toBe('state_conflict');
      expect(err.suggestedAction).toBe('fetch_artifact');
      expect(err.suggestedEndpoint).toBe(`GET ${V1}/artifacts/${id}`);
      expect((await unwrap(t.s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id } } }))).state).toBe(from);
    });
  }

  it('cannot move to published (that is the publish operation) — 422 naming `to`', async () => {
    const id = await artifact('ready');
    const { res, body } = await rawRequest(t.s, `${V1}/artifacts/${id}/transition`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ to: 'published', idempotency_key: newIdempotencyKey() }),
    });
    expect(res.status).toBe(422);
    expect(body.error?.message).toContain('to');
  });

  it('is 404 for an unknown artifact and for another workspace', async () => {
    expect((await refusal(move('art_nope', 'ready'))).status).toBe(404);
    const id = await artifact('review');
    expect((await refusal(move(id, 'ready', newIdempotencyKey(), await t.s.newWorkspace()))).status).toBe(404);
  });
});

describe('concurrency and replays', () => {
  it('lets exactly one of two concurrent moves from the same state win', async () => {
    const id = await artifact('review');
    const results = await Promise.allSettled([move(id, 'ready'), move(id, 'discarded'), move(id, 'ready')]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    // discard may follow a winning approve (ready → discarded is allowed), never two approvals
    const states = won.map((r) => (r as PromiseFulfilledResult<Schemas['Artifact']>).value.state);
    expect(states.filter((x) => x === 'ready').length).toBeLessThanOrEqual(1);
    for (const r of lost) expect((r.reason as ContentPipelineError).code).toBe('state_conflict');
    expect(won.length + lost.length).toBe(3);
  });

  it('replays a move with the same key as its first answer', async () => {
    const id = await artifact('review');
    const key = newIdempotencyKey();
    const first = await move(id, 'ready', key);
    await move(id, 'review');
    const replay = await t.s.client().POST(`${V1}/artifacts/{id}/transition`, { params: { path: { id } }, body: { to: 'ready', idempotency_key: key } });
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data).toEqual(first);
  });
});

describe('publishing around the moves', () => {
  // Posted by hand (mark-published): the pipeline here has no destination the service posts to.
  const publish = (id: string) => unwrap(markPublished(t.s, id));

  it('records an approved artifact as published; a draft is 403; a discarded one is 409', async () => {
    const id = await artifact('review');
    await move(id, 'ready');
    const published = await publish(id);
    expect(published.state).toBe('published');
    expect(published.published_at).not.toBeNull();
    expect((await refusal(publish(await artifact('draft')))).status).toBe(403);
    const gone = await artifact('review');
    await move(gone, 'discarded');
    expect((await refusal(publish(gone))).status).toBe(409);
  });
});
