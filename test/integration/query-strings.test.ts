// Query strings as people type them (issue #30): RFC 3986 allows `:` and other reserved
// characters in a query, and curl users write `from=2026-12-26T00:00:00Z` and
// `destination=manual:x` as they are; a list filter takes its values separated by commas
// (`state=review,ready`) as well as repeated. A `+` written in a query is a space (form encoding):
// the answer says to write it `%2B`. A value a reserved character makes invalid is refused by what
// the value must be, never with "must be url encoded".
import { describe, expect, it } from 'vitest';
import { rawRequest, V1 } from '../support/api.js';
import { seedArtifact, seedPipelineWithPost } from '../support/seed.js';
import { serverSuite } from '../support/suite.js';

const t = serverSuite();

async function pipelineWithArtifacts(states: string[]) {
  const deps = t.s.running.deps;
  const { pipelineId, postId } = await seedPipelineWithPost(deps, { workspaceId: t.ws, platform: 'rss', intent: 'Query strings' });
  const ids: Record<string, string> = {};
  for (const state of states)
    ids[state] = (await seedArtifact(deps, { workspaceId: t.ws, pipelineId, postId: postId!, state, text: `An artifact in ${state}` })).id;
  return { pipelineId, ids };
}

const get = (pathAndQuery: string) => rawRequest(t.s, `${V1}${pathAndQuery}`);
const idsOf = (body: unknown) => ((body as { data: Array<{ id: string }> }).data ?? []).map((a) => a.id).sort();

describe('reserved characters written as they are', () => {
  it.each([
    '/calendar?from=2026-12-26T00:00:00Z&to=2027-01-02T00:00:00Z',
    '/artifacts?updated_since=2026-11-25T18:00:00Z',
    '/artifacts?scheduled_after=2026-12-01T00:00:00Z&scheduled_before=2026-12-08T00:00:00Z',
    '/artifacts?destination=manual:x',
    '/artifacts?updated_since=2026-11-25T18:00:00.000Z&destination=manual:linkedin',
  ])('%s answers 200', async (q) => {
    const r = await get(q);
    expect([r.res.status, r.text]).toEqual([200, expect.any(String)]);
    expect(r.body).toMatchObject({ data: expect.any(Array) });
  });

  it('filters the same whether the value is written as it is or percent-encoded', async () => {
    const { pipelineId } = await pipelineWithArtifacts(['review']);
    const plain = await get(`/artifacts?pipeline_id=${pipelineId}&updated_since=2000-01-01T00:00:00Z`);
    const encoded = await get(`/artifacts?pipeline_id=${pipelineId}&updated_since=2000-01-01T00%3A00%3A00Z`);
    expect(plain.res.status).toBe(200);
    expect(idsOf(plain.body)).toEqual(idsOf(encoded.body));
    expect(idsOf(plain.body)).toHaveLength(1);
  });
});

describe('multi-valued filters', () => {
  it('take their values separated by commas, percent-encoded commas, or the parameter repeated: the same artifacts', async () => {
    const { pipelineId, ids } = await pipelineWithArtifacts(['review', 'ready', 'discarded']);
    const want = [ids.review!, ids.ready!].sort();
    for (const q of ['state=review,ready', 'state=review%2Cready', 'state=review&state=ready']) {
      const r = await get(`/artifacts?pipeline_id=${pipelineId}&${q}`);
      expect([q, r.res.status]).toEqual([q, 200]);
      expect([q, idsOf(r.body)]).toEqual([q, want]);
    }
  });

  it('names an unknown value in the comma form as in the repeated one (422 query.state)', async () => {
    for (const q of ['state=review,bogus', 'state=review&state=bogus']) {
      const r = await get(`/artifacts?${q}`);
      expect(r.res.status).toBe(422);
      expect(r.body.error).toMatchObject({ code: 'validation_failed' });
      expect(r.body.error!.message).toMatch(/^query\.state\[1\] must be equal to one of the allowed values/);
    }
  });

  it('runs: status and kind take the comma form too', async () => {
    const r = await get('/runs?status=queued,running,succeeded,failed&kind=ingest,publish');
    expect(r.res.status).toBe(200);
    expect(r.body).toMatchObject({ data: expect.any(Array) });
  });
});

describe('what cannot be accepted says exactly what to send', () => {
  it('a + written in a date is a space: 422 naming the field and saying to write %2B', async () => {
    const r = await get('/calendar?from=2026-12-26T00:00:00+01:00&to=2027-01-02T00:00:00Z');
    expect(r.res.status).toBe(422);
    expect(r.body.error!.message).toBe(
      'query.from must match format "date-time" (query.from: a + written in a query string stands for a space; write it as %2B)',
    );
    const fixed = await get('/calendar?from=2026-12-26T00:00:00%2B01:00&to=2027-01-02T00:00:00Z');
    expect(fixed.res.status).toBe(200);
  });

  it('a reserved character in a value that cannot hold one is refused by what the value must be, not "must be url encoded"', async () => {
    const limit = await get('/artifacts?limit=5:');
    expect(limit.res.status).toBe(422);
    expect(limit.body.error!.message).toMatch(/^query\.limit must be an integer/);
    const destination = await get('/artifacts?destination=manual:myspace');
    expect(destination.res.status).toBe(422);
    expect(destination.body.error!.message).toMatch(/^query\.destination /);
    for (const r of [limit, destination]) expect(r.body.error!.message).not.toMatch(/url encoded|reserved/);
  });

  it('a cursor with a + in it is not one this server gave (400 bad_request), written as it is or encoded', async () => {
    for (const cursor of ['abc+def.ghi', 'abc%2Bdef.ghi']) {
      const r = await get(`/pipelines?cursor=${cursor}`);
      expect([cursor, r.res.status, r.body.error?.code]).toEqual([cursor, 400, 'bad_request']);
    }
  });
});
