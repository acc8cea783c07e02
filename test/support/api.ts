// The Agent API as the tests use it, through the typed client: the v1 prefix, a pipeline made
// (and ingested), a post drafted, an artifact moved or published, a request past the client, and
// the events recorded. Every test file starts from here instead of its own copies.
//
//   const t = serverSuite();
//   const { pipeline_id } = await newPipeline(t.s);                     // a new pipeline, a new name
//   const { run, artifact } = await draftAndWait(t.s, postId);
//   await moveArtifact(t.s, artifact.id, 'approved');
//   const { artifact: published } = await publishAndWait(t.s, artifact.id);
//
// Names a test needs to be new (a pipeline's intent, an idempotency key, a session) come from
// `unique`: a counter of this test file, so that a failing run is the same run when repeated.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newIdempotencyKey, unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { outboundEnvFor } from './https-fake.js';
import { mastodonStatus, startBlueskyFake, startMastodonFake } from './platforms.js';
import { findRows } from './rows.js';
import { expectRunSucceeded, waitForRun } from './runs.js';
import { workspaceOf } from './seed.js';
import { startTestServer, type TestServer } from './server.js';

export const V1 = '/api/agent/v1';

// ---- names ----

let counter = 0;

/**
 * `${prefix}-${n}`: n counts the calls of this test file (each file is a module of its own), so a
 * name is new in the file's server and the same in every run.
 */
export function unique(prefix = 'name'): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** An idempotency key of this test file, new at each call (keys are 16 to 255 characters). */
export const uniqueKey = (prefix = 'test') => `${unique(prefix)}-idempotency-key`;

// ---- fixtures ----

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/archives');

/** The content of a sample export under test/fixtures/archives. */
export const archiveFixture = (name: string) => readFileSync(path.join(fixtures, name), 'utf8');

// ---- accounts and pipelines ----

export function connect(s: TestServer, body: Omit<Schemas['ConnectAccountRequest'], 'idempotency_key'>, token?: string) {
  return unwrap(s.client(token).POST(`${V1}/accounts/connect`, { body: { ...body, idempotency_key: newIdempotencyKey() } }));
}

export function startPipeline(s: TestServer, handle: string, intent = 'Weekly posts about our releases', token?: string) {
  return unwrap(s.client(token).POST(`${V1}/pipelines/from-intent`, { body: { handle, intent, idempotency_key: newIdempotencyKey() } }));
}

export interface NewPipeline {
  handle?: string;
  /** Default: a new one (`unique`), so that each call makes a new pipeline rather than resuming one. */
  intent?: string;
  tone?: string;
  token?: string;
}

/** A new pipeline (POST /pipelines/from-intent); its ingest is queued, not waited for. */
export function newPipeline(s: TestServer, o: NewPipeline = {}) {
  const body = {
    handle: o.handle ?? '@ada@mastodon.example',
    intent: o.intent ?? unique('Weekly posts about our releases'),
    ...(o.tone ? { tone: o.tone } : {}),
    idempotency_key: newIdempotencyKey(),
  };
  return unwrap(s.client(o.token).POST(`${V1}/pipelines/from-intent`, { body }));
}

/** Starts (or resumes) the pipeline and waits for its ingest to succeed. */
export async function ingest(s: TestServer, handle: string, intent?: string) {
  const started = await startPipeline(s, handle, intent);
  const { run, output } = await expectRunSucceeded(s.running.deps, started.run_id);
  return { ...started, run, output };
}

/** Starts the pipeline and waits for its ingest to fail; returns the failed run. */
export async function failedIngest(s: TestServer, handle: string, intent?: string, timeoutMs?: number) {
  const started = await startPipeline(s, handle, intent);
  const run = await waitForRun(s.running.deps, started.run_id, { timeoutMs });
  if (run.status !== 'failed') throw new Error(`expected the ingest to fail, it ${run.status}`);
  return { ...started, run };
}

/** Connects the sample archive `file` as `name` and ingests it. */
export async function ingestArchive(s: TestServer, file: string, name: string, format?: 'x' | 'linkedin' | 'mastodon') {
  await connect(s, { platform: 'archive', handle: name, auth_material: archiveFixture(file), ...(format ? { secondary_auth: format } : {}) });
  return ingest(s, name);
}

export async function listAllPosts(s: TestServer, pipelineId: string) {
  const page = await unwrap(s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: pipelineId }, query: { limit: 100 } } }));
  return page.data;
}

// ---- posts and artifacts ----

export type DraftBody = Omit<Schemas['DraftRequest'], 'idempotency_key'> & { idempotency_key?: string };

/** POST /posts/{id}/draft (202): the accepted draft and its run. */
export function draftPost(s: TestServer, postId: string, body: DraftBody = {}, token?: string) {
  return s.client(token).POST(`${V1}/posts/{id}/draft`, { params: { path: { id: postId } }, body: { idempotency_key: newIdempotencyKey(), ...body } });
}

/** Drafts and waits for the run: the run and the artifact as it ended. */
export async function draftAndWait(s: TestServer, postId: string, body: DraftBody = {}) {
  const accepted = await unwrap(draftPost(s, postId, body));
  const run = await waitForRun(s.running.deps, accepted.run_id);
  return { accepted, run, artifact: await getArtifact(s, accepted.artifact_id) };
}

export const getArtifact = (s: TestServer, id: string, token?: string) => unwrap(s.client(token).GET(`${V1}/artifacts/{id}`, { params: { path: { id } } }));

/** POST /artifacts/{id}/transition: approve (`approved`), reopen (`review`), discard (`discarded`), … */
export function moveArtifact(s: TestServer, id: string, to: Schemas['ArtifactTransitionRequest']['to'], o: { token?: string; idempotencyKey?: string } = {}) {
  return unwrap(
    s
      .client(o.token)
      .POST(`${V1}/artifacts/{id}/transition`, { params: { path: { id } }, body: { to, idempotency_key: o.idempotencyKey ?? newIdempotencyKey() } }),
  );
}

// ---- publishing ----

type Answer = Schemas['Artifact'] | Schemas['PublishAccepted'];

/** The artifact of a 200 answer; fails the test on a 202 (a queued run). */
export function asArtifact(a: Answer): Schemas['Artifact'] {
  if ('run' in a) throw new Error(`expected the artifact (200), got a queued run ${a.run.run_id}`);
  return a;
}

/** The accepted run of a 202 answer; fails the test on a 200. */
export function asAccepted(a: Answer): Schemas['PublishAccepted'] {
  if (!('run' in a)) throw new Error(`expected a queued run (202), got the artifact in ${a.state}`);
  return a;
}

export type PublishBody = Omit<Schemas['PublishRequest'], 'idempotency_key'> & { idempotency_key?: string };

export const publishRequest = (s: TestServer, id: string, body: PublishBody = {}) =>
  s.client().POST(`${V1}/artifacts/{id}/publish`, { params: { path: { id } }, body: { idempotency_key: newIdempotencyKey(), ...body } });

/** Publishes now and waits for the run (when one was queued); the artifact as it ended. */
export async function publishAndWait(s: TestServer, id: string, body: PublishBody = {}) {
  const answer = await unwrap(publishRequest(s, id, body));
  if (!('run' in answer)) return { artifact: answer, run: null };
  const run = await waitForRun(s.running.deps, answer.run.run_id);
  return { artifact: await getArtifact(s, id), run, accepted: answer };
}

/**
 * A server with the Mastodon and Bluesky fakes, an account connected on each and a pipeline
 * ingested from each (its first post's id kept, to seed artifacts on): what publishing tests share.
 * Call in beforeAll; `stop` in afterAll.
 */
export async function publishingWorld() {
  const mastodon = await startMastodonFake({ statuses: [mastodonStatus(1)] });
  const bluesky = await startBlueskyFake({
    posts: [{ rkey: '3kaaa', text: 'A post', createdAt: '2026-10-02T10:00:00.000Z', likeCount: 1, repostCount: 0, replyCount: 0, quoteCount: 0 }],
  });
  const s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake, bluesky.fake), ...bluesky.env, JOB_POLL_MS: '50', JOB_RETRY_BASE_MS: '300' } });
  const workspaceId = await workspaceOf(s.running.deps, s.token);
  await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
  await connect(s, { platform: 'bluesky', handle: bluesky.state.handle, auth_material: bluesky.state.appPassword });
  const pipelines = {} as Record<'mastodon' | 'bluesky', { id: string; postId: string }>;
  for (const [platform, handle] of [
    ['mastodon', mastodon.handle],
    ['bluesky', bluesky.state.handle],
  ] as const) {
    const { pipeline_id } = await ingest(s, handle);
    pipelines[platform] = { id: pipeline_id, postId: (await listAllPosts(s, pipeline_id))[0].id };
  }
  const stop = async () => {
    await s.stop();
    for (const f of [mastodon.fake, bluesky.fake]) await f.close();
  };
  return { s, mastodon, bluesky, workspaceId, pipelines, stop };
}

// ---- past the typed client ----

export interface RawReply {
  res: Response;
  text: string;
  body: { error?: { code: string; message: string; suggested_action?: string } } & Record<string, unknown>;
}

/**
 * A request with fetch, past the typed client: for what the client would refuse to send (unknown
 * routes, odd spellings, malformed bodies and query strings). The body is parsed as JSON when it
 * is. `token`: the server's own by default, `null` for none.
 */
export async function rawRequest(s: TestServer, path: string, init: RequestInit & { token?: string | null } = {}): Promise<RawReply> {
  const headers = new Headers(init.headers);
  const token = init.token === undefined ? s.token : init.token;
  if (token !== null) headers.set('Authorization', `Bearer ${token}`);
  const res = await fetch(`${s.url}${path}`, { ...init, headers });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { res, text, body: body as RawReply['body'] };
}

/** A call with `token` (null: none) and a JSON body when given: its status and parsed body. */
export async function callWith(
  s: TestServer,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: RawReply['body'] }> {
  const init: RequestInit & { token: string | null } = { method, token };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'Content-Type': 'application/json' };
  }
  const r = await rawRequest(s, path, init);
  return { status: r.res.status, body: r.body };
}

// ---- events ----

export interface StoredEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/** Events recorded in the outbox, oldest first (optionally of one type). */
export async function recordedEvents(s: TestServer, type?: string): Promise<StoredEvent[]> {
  const rows = await findRows(s.running.deps.db, 'Event', type ? { type } : {}, 'seq');
  return rows.map((r) => ({ id: r.id, type: r.type, data: JSON.parse(r.data) as Record<string, unknown> }));
}

// ---- posts made by hand ----

/** A post made by hand on X, recorded with POST /artifacts/{id}/mark-published (the artifact as answered). */
export const markPublished = (s: TestServer, id: string, key = newIdempotencyKey(), url = 'https://x.com/ada_lovelace/status/1859951771532320873') =>
  s.client().POST(`${V1}/artifacts/{id}/mark-published`, { params: { path: { id } }, body: { platform: 'x', url, idempotency_key: key } });
