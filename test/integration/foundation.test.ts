// The foundation's rules, through the typed client against a real server and database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap, type ContentPipelineError, newIdempotencyKey } from '../../clients/typescript/src/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { seedArtifact, seedPosts, workspaceOf } from '../support/seed.js';
import { refusal } from '../support/errors.js';
import { countRows, updateRows } from '../support/rows.js';
import { asArtifact, markPublished, newPipeline, rawRequest, unique, V1 } from '../support/api.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

const raw = (path: string, init: RequestInit & { token?: string | null } = {}) => rawRequest(s, path, init);

const pipelineOf = (token = s.token, handle = '@ada@mastodon.example', intent = unique('intent')) => newPipeline(s, { token, handle, intent });

describe('authentication', () => {
  it('refuses a missing header, a malformed token and a wrong token with 401 unauthorized', async () => {
    for (const token of [null, 'abc', 'f'.repeat(64)]) {
      const { res, body } = await raw(`${V1}/pipelines/pl_x`, { token });
      expect(res.status).toBe(401);
      expect(body.error?.code).toBe('unauthorized');
      expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
  });

  it('writes the desktop token file with mode 0600 and 64 lowercase hex characters', async () => {
    const { statSync } = await import('node:fs');
    const st = statSync(`${s.db.dataDir}/agent-token`);
    expect(st.mode & 0o777).toBe(0o600);
    expect(s.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('serves /openapi.json, /docs and /api/health without a token', async () => {
    const spec = await raw('/openapi.json', { token: null });
    expect(spec.res.status).toBe(200);
    expect((spec.body as { openapi?: string }).openapi).toBe('3.1.0');
    // the internal receivers are not in the public description
    expect(Object.keys((spec.body as { paths: object }).paths)).not.toContain('/api/webhooks/backend');
    const health = await raw('/api/health', { token: null });
    expect(health.body).toEqual({ status: 'ok' });
    // npm test builds the page before the tests; without it /docs says how to build it.
    const docs = await fetch(`${s.url}/docs`);
    expect(docs.headers.get('x-request-id')).toMatch(/^req_/);
    const { existsSync } = await import('node:fs');
    if (existsSync('build/docs.html')) {
      expect(docs.status).toBe(200);
      expect(docs.headers.get('content-type')).toContain('text/html');
      const html = await docs.text();
      expect(html).toContain('Content Pipeline Agent API');
      expect(html).not.toContain('/api/webhooks/backend'); // internal receivers stay out of the partner docs
      // The "Servers" box (and the description the page embeds) shows where this server listens, not the documented 8787.
      const port = new URL(s.url).port;
      expect(port).not.toBe('8787');
      expect(html).toMatch(new RegExp(`server-panel-item-name[\\s\\S]{0,400}http://127\\.0\\.0\\.1:${port}<`));
      expect(html).toContain(`"servers":[{"url":"http://127.0.0.1:${port}"`);
      expect(html).not.toContain('127.0.0.1:8787');
      // The page's inline scripts are still allowed by their hashes, after the address went in.
      const { docsContentSecurityPolicy } = await import('../../server/http/docs.js');
      expect(docs.headers.get('content-security-policy')).toBe(docsContentSecurityPolicy(html));
    } else {
      expect(docs.status).toBe(503);
      expect(((await docs.json()) as { error: { message: string } }).error.message).toContain('npm run build');
    }
  });

  it('scopes every resource to the token workspace: another workspace gets 404', async () => {
    const mine = await pipelineOf();
    const other = await s.newWorkspace();
    const err = await refusal(unwrap(s.client(other).GET(`${V1}/pipelines/{id}`, { params: { path: { id: mine.pipeline_id } } })));
    expect(err.status).toBe(404);
    expect(err.code).toBe('not_found');
    const posts = await refusal(unwrap(s.client(other).GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: mine.pipeline_id } } })));
    expect(posts.status).toBe(404);
    // and the owner still sees it
    const p = await unwrap(s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id: mine.pipeline_id } } }));
    expect(p.id).toBe(mine.pipeline_id);
  });
});

describe('errors', () => {
  it('malformed JSON is 400 bad_request', async () => {
    const { res, body } = await raw(`${V1}/pipelines/from-intent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"handle":' });
    expect(res.status).toBe(400);
    expect(body.error?.code).toBe('bad_request');
  });

  it('a body failing the schema is 422 validation_failed naming the field', async () => {
    const { res, body } = await raw(`${V1}/pipelines/from-intent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ handle: 'x', intent: 'y', idempotency_key: 'short' }),
    });
    expect(res.status).toBe(422);
    expect(body.error?.code).toBe('validation_failed');
    expect(body.error?.message).toContain('idempotency_key');
    const missing = await raw(`${V1}/pipelines/from-intent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ intent: 'y', idempotency_key: 'k'.repeat(20) }),
    });
    expect(missing.body.error?.message).toContain('handle');
    const extra = await raw(`${V1}/pipelines/from-intent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ handle: 'x', intent: 'y', idempotency_key: 'k'.repeat(20), surprise: 1 }),
    });
    expect(extra.res.status).toBe(422);
    expect(extra.body.error?.message).toContain('surprise');
  });

  it('a body that is not JSON is 415, one over 1 MiB is 413, both bad_request', async () => {
    const plain = await raw(`${V1}/pipelines/from-intent`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(plain.res.status).toBe(415);
    expect(plain.body.error?.code).toBe('bad_request');
    const big = await raw(`${V1}/pipelines/from-intent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ handle: 'x'.repeat(1_100_000), intent: 'y', idempotency_key: 'k'.repeat(20) }),
    });
    expect(big.res.status).toBe(413);
    expect(big.body.error?.code).toBe('bad_request');
  });

  it('an unknown route is 404 and a wrong method is 405 with Allow, both with the envelope and a request id', async () => {
    const unknown = await raw(`${V1}/nope`);
    expect(unknown.res.status).toBe(404);
    expect(unknown.body.error?.code).toBe('not_found');
    expect(unknown.res.headers.get('x-request-id')).toMatch(/^req_/);
    const wrong = await raw(`${V1}/pipelines/pl_x`, { method: 'DELETE' });
    expect(wrong.res.status).toBe(405);
    expect(wrong.res.headers.get('allow')).toBe('GET');
    expect(wrong.body.error?.code).toBe('bad_request');
    expect(wrong.res.headers.get('content-type')).toContain('application/json');
  });

  it('an unknown query parameter and an out-of-range limit are 422 naming the parameter', async () => {
    const p = await pipelineOf();
    const unknown = await raw(`${V1}/pipelines/${p.pipeline_id}?foo=1`);
    expect(unknown.res.status).toBe(422);
    expect(unknown.body.error?.message).toContain('foo');
    for (const limit of ['0', '101', 'abc']) {
      const r = await raw(`${V1}/pipelines/${p.pipeline_id}/posts?limit=${limit}`);
      expect(r.res.status).toBe(422);
      expect(r.body.error?.message).toContain('limit');
    }
  });

  it('a path parameter with a malformed %-escape is 422 naming the parameter', async () => {
    for (const bad of ['%zz', '%E0%A4%A', 'art_%']) {
      const r = await raw(`${V1}/artifacts/${bad}`);
      expect(r.res.status).toBe(422);
      expect(r.body.error).toEqual({
        code: 'validation_failed',
        message: 'path.id is not valid percent-encoding: a % must start the escape of a UTF-8 byte (two hexadecimal digits).',
      });
    }
    // A well-formed escape decodes as usual (and names no artifact).
    expect((await raw(`${V1}/artifacts/art_%41`)).res.status).toBe(404);
  });
});

describe('pipelines', () => {
  it('creates, then resumes the same (handle, intent), queuing a run each time', async () => {
    const first = await pipelineOf(s.token, '@ada@mastodon.example', 'weekly notes');
    expect(first.resumed).toBe(false);
    const again = await unwrap(
      s.client().POST(`${V1}/pipelines/from-intent`, {
        body: { handle: '@ada@mastodon.example', intent: 'weekly notes', tone: 'dry', idempotency_key: newIdempotencyKey() },
      }),
    );
    expect(again.resumed).toBe(true);
    expect(again.pipeline_id).toBe(first.pipeline_id);
    expect(again.run_id).not.toBe(first.run_id);
    const p = await unwrap(s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id: first.pipeline_id } } }));
    expect(p.tone).toBe('dry');
    expect(p.last_run?.run_id).toBe(again.run_id);
    expect(p.last_run?.kind).toBe('ingest');
  });
});

describe('posts', () => {
  it('pages newest first with cursors, without gaps or repeats, and filters by has_artifact', async () => {
    const p = await pipelineOf();
    const ws = await workspaceOf(s.running.deps, s.token);
    const ids = await seedPosts(s.running.deps, { workspaceId: ws, pipelineId: p.pipeline_id, count: 25 });
    await seedArtifact(s.running.deps, { workspaceId: ws, pipelineId: p.pipeline_id, postId: ids[3]!, state: 'review' });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await unwrap(s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: p.pipeline_id }, query: { limit: 10, cursor } } }));
      seen.push(...page.data.map((d) => d.id));
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(25);
    expect(seen.sort()).toEqual([...ids].sort());
    const defaultPage = await unwrap(s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: p.pipeline_id } } }));
    expect(defaultPage.data).toHaveLength(20);
    const times = defaultPage.data.map((d) => d.published_at);
    expect([...times].sort().reverse()).toEqual(times);
    const withArtifact = await unwrap(s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: p.pipeline_id }, query: { has_artifact: true } } }));
    expect(withArtifact.data.map((d) => d.id)).toEqual([ids[3]]);
    expect(withArtifact.data[0]!.has_artifact).toBe(true);
    const without = await unwrap(
      s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: p.pipeline_id }, query: { has_artifact: false, limit: 100 } } }),
    );
    expect(without.data).toHaveLength(24);
  });

  it('refuses a tampered cursor, and a cursor from another list, with 400 bad_request', async () => {
    const p = await pipelineOf();
    const q = await pipelineOf();
    const ws = await workspaceOf(s.running.deps, s.token);
    await seedPosts(s.running.deps, { workspaceId: ws, pipelineId: p.pipeline_id, count: 3 });
    const page = await unwrap(s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: p.pipeline_id }, query: { limit: 1 } } }));
    const cursor = page.next_cursor!;
    expect(cursor).toBeTruthy();
    const [payload, sig] = cursor.split('.');
    const forged = Buffer.from(
      JSON.stringify({ s: JSON.parse(Buffer.from(payload!, 'base64url').toString()).s, p: { t: '2030-01-01T00:00:00.000Z', i: 'zzz' } }),
    ).toString('base64url');
    for (const bad of [`${forged}.${sig}`, `${payload}.${sig!.slice(0, -2)}AA`, 'garbage', payload!]) {
      const err = await refusal(unwrap(s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: p.pipeline_id }, query: { cursor: bad } } })));
      expect(err.status).toBe(400);
      expect(err.code).toBe('bad_request');
    }
    const foreignList = await refusal(unwrap(s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: q.pipeline_id }, query: { cursor } } })));
    expect(foreignList.status).toBe(400);
    const foreignFilter = await refusal(
      unwrap(s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: p.pipeline_id }, query: { cursor, has_artifact: false } } })),
    );
    expect(foreignFilter.status).toBe(400);
  });
});

describe('artifacts and publishing', () => {
  // An archive pipeline publishes without an upstream (platform publishing has its own tests).
  async function artifactIn(state: string) {
    const p = await pipelineOf(s.token, 'ada-archive');
    const ws = await workspaceOf(s.running.deps, s.token);
    const [postId] = await seedPosts(s.running.deps, { workspaceId: ws, pipelineId: p.pipeline_id, count: 1 });
    return seedArtifact(s.running.deps, { workspaceId: ws, pipelineId: p.pipeline_id, postId: postId!, state, text: 'Hello world' });
  }
  const publish = (id: string, key = newIdempotencyKey()) =>
    unwrap(s.client().POST(`${V1}/artifacts/{id}/publish`, { params: { path: { id } }, body: { idempotency_key: key } })).then(asArtifact);

  it('returns text, state and genealogy', async () => {
    const a = await artifactIn('review');
    const got = await unwrap(s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id: a.id } } }));
    expect(got).toMatchObject({
      id: a.id,
      text: 'Hello world',
      state: 'review',
      genealogy: { parent_artifact_id: null, root_artifact_id: a.id, generation: 0, ancestors: [] },
    });
  });

  it('publishes review and ready artifacts', async () => {
    for (const state of ['review', 'ready']) {
      const a = await artifactIn(state);
      // Posted by hand on X: an archive pipeline has no destination the service posts to.
      const done = await unwrap(markPublished(s, a.id));
      expect(done.state).toBe('published');
      expect(done.published_at).not.toBeNull();
    }
  });

  it('refuses a draft with 403 forbidden, and discarded or published with 409 state_conflict, changing nothing', async () => {
    const draft = await artifactIn('draft');
    const e1 = await refusal(publish(draft.id));
    expect([e1.status, e1.code, e1.suggestedAction]).toEqual([403, 'forbidden', 'fetch_artifact']);
    for (const state of ['discarded', 'published']) {
      const a = await artifactIn(state);
      const e = await refusal(publish(a.id));
      expect([e.status, e.code]).toEqual([409, 'state_conflict']);
      const after = await unwrap(s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id: a.id } } }));
      expect(after.state).toBe(state);
    }
    const after = await unwrap(s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id: draft.id } } }));
    expect(after.state).toBe('draft');
  });
});

describe('idempotency', () => {
  it('replays the first response byte for byte for the same key and body, without doing the work again', async () => {
    const key = newIdempotencyKey();
    const body = JSON.stringify({ handle: '@bob@mastodon.example', intent: 'replay', idempotency_key: key });
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
    const { res: first, text: firstText } = await raw(`${V1}/pipelines/from-intent`, init);
    const { res: second, text: secondText } = await raw(`${V1}/pipelines/from-intent`, init);
    expect(second.status).toBe(first.status);
    expect(secondText).toBe(firstText);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const { pipeline_id, run_id } = JSON.parse(firstText);
    const p = await unwrap(s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id: pipeline_id } } }));
    expect(p.last_run?.run_id).toBe(run_id); // no second run was queued
    const runs = await countRows(s.running.deps.db, 'Run', { pipelineId: pipeline_id });
    expect(runs).toBe(1);
  });

  it('the same key with another body (or another path) is 422 naming idempotency_key', async () => {
    const key = newIdempotencyKey();
    await unwrap(s.client().POST(`${V1}/pipelines/from-intent`, { body: { handle: '@c@mastodon.example', intent: 'a', idempotency_key: key } }));
    const err = await refusal(
      unwrap(s.client().POST(`${V1}/pipelines/from-intent`, { body: { handle: '@c@mastodon.example', intent: 'b', idempotency_key: key } })),
    );
    expect([err.status, err.code]).toEqual([422, 'validation_failed']);
    expect(err.message).toContain('idempotency_key');
  });

  it('keys are scoped per workspace: another workspace may use the same key', async () => {
    const key = newIdempotencyKey();
    const other = await s.newWorkspace();
    const a = await unwrap(s.client().POST(`${V1}/pipelines/from-intent`, { body: { handle: '@d@mastodon.example', intent: 'a', idempotency_key: key } }));
    const b = await unwrap(s.client(other).POST(`${V1}/pipelines/from-intent`, { body: { handle: '@d@mastodon.example', intent: 'a', idempotency_key: key } }));
    expect(b.pipeline_id).not.toBe(a.pipeline_id);
  });

  it('concurrent duplicates never do the work twice', async () => {
    const key = newIdempotencyKey();
    const body = { handle: '@e@mastodon.example', intent: `concurrent ${key}`, idempotency_key: key };
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => unwrap(s.client().POST(`${V1}/pipelines/from-intent`, { body }))));
    const ok = results.filter((r): r is PromiseFulfilledResult<{ pipeline_id: string; run_id: string; resumed: boolean }> => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    for (const r of refused) {
      expect((r.reason as ContentPipelineError).code).toBe('state_conflict');
      expect((r.reason as ContentPipelineError).suggestedAction).toBe('retry_later');
    }
    expect(ok.length).toBeGreaterThan(0);
    expect(new Set(ok.map((r) => r.value.run_id)).size).toBe(1);
    const pipelineId = ok[0]!.value.pipeline_id;
    expect(await countRows(s.running.deps.db, 'Run', { pipelineId })).toBe(1);
  });

  it('does not remember a request that failed, so it can be retried with the same key', async () => {
    const p = await pipelineOf(s.token, 'ada-archive');
    const ws = await workspaceOf(s.running.deps, s.token);
    const [postId] = await seedPosts(s.running.deps, { workspaceId: ws, pipelineId: p.pipeline_id, count: 1 });
    const a = await seedArtifact(s.running.deps, { workspaceId: ws, pipelineId: p.pipeline_id, postId: postId!, state: 'draft' });
    const key = newIdempotencyKey();
    const e = await refusal(unwrap(markPublished(s, a.id, key)));
    expect(e.status).toBe(403);
    await updateRows(s.running.deps.db, 'Artifact', { id: a.id }, { state: 'ready', updatedAt: new Date() });
    const done = await unwrap(markPublished(s, a.id, key));
    expect(done.state).toBe('published');
    const replay = await unwrap(markPublished(s, a.id, key));
    expect(replay).toEqual(done);
  });
});

describe('rate limit headers', () => {
  it('are on every authenticated response, errors included', async () => {
    for (const path of [`${V1}/pipelines/pl_missing`, `${V1}/nope`]) {
      const { res } = await raw(path);
      expect(Number(res.headers.get('ratelimit-limit'))).toBe(600);
      expect(Number(res.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
      expect(res.headers.get('ratelimit-policy')).toBe('"default";q=600;w=60');
      expect(res.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
  });
});
