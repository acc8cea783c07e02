// Uploading a generated export through POST /imports and ingesting it through a pipeline, as an
// agent does; shared by the integration tests of the export formats.
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { ingest, rawRequest, V1 } from './api.js';
import type { ExpectedPost } from './exports.js';
import { startTestServer, type TestServer } from './server.js';

/** POST /imports with the bytes as the body: the status and the answer. */
export async function postImport(s: TestServer, body: Buffer, query: Record<string, string>, contentType: string) {
  const qs = new URLSearchParams({ idempotency_key: newIdempotencyKey(), ...query });
  const r = await rawRequest(s, `${V1}/imports?${qs}`, { method: 'POST', headers: { 'Content-Type': contentType }, body: new Uint8Array(body) });
  return { status: r.res.status, json: r.body as Record<string, any> };
}

/** Ingests the handle's import (`expected` posts, with progress to the end) and lists the pipeline's posts. */
export async function ingestedPosts(s: TestServer, handle: string, expected: number) {
  const { pipeline_id, run_id, output } = await ingest(s, handle);
  expect(output).toMatchObject({ fetched: expected, created: expected });
  const run = await unwrap(s.client().GET(`${V1}/runs/{id}`, { params: { path: { id: run_id } } }));
  expect(run.progress).toEqual({ done: expected, total: expected });
  return s
    .client()
    .paginate(`${V1}/pipelines/{id}/posts`, { params: { path: { id: pipeline_id } } })
    .toArray({ limit: 5000 });
}

/** A medium as the API lists it. */
export const listedMedia = (m: ExpectedPost['media'][number]) => ({
  type: m.type,
  alt_text: m.alt_text,
  archive_path: m.archive_path,
  url: m.url,
  width: m.width,
  height: m.height,
});

/**
 * A server for the file's tests (started before them, stopped after, with generous limits for
 * exports of hundreds of posts on a loaded machine), and the two calls on it.
 */
export function importServer() {
  let s: TestServer;
  vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });
  beforeAll(async () => void (s = await startTestServer()));
  afterAll(() => s?.stop());
  return {
    server: () => s,
    post: (body: Buffer, query: Record<string, string>, contentType: string) => postImport(s, body, query, contentType),
    ingested: (handle: string, expected: number) => ingestedPosts(s, handle, expected),
  };
}

type Listed = Awaited<ReturnType<typeof ingestedPosts>>[number];

/** The listed posts are the expected ones (found by `key`), with their text, date, audience and media. */
export function expectListed(posts: Listed[], expected: Map<string, ExpectedPost>, key: (p: Listed) => string) {
  expect(posts).toHaveLength(expected.size);
  for (const p of posts) {
    const e = expected.get(key(p));
    expect(e, key(p)).toBeDefined();
    expect({ text: p.text, published_at: p.published_at, visibility: p.visibility, media: p.media }).toEqual({
      text: e!.text,
      published_at: e!.publishedAt,
      visibility: e!.visibility,
      media: e!.media.map(listedMedia),
    });
  }
}
