// Publishing in tests: the 200 answer (nothing to post) as an Artifact, and a publish followed
// to the end of its run.
import type { Schemas } from '../../clients/typescript/src/index.js';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { outboundEnvFor } from './https-fake.js';
import { connect, ingest, listAllPosts, V1 } from './pipelines.js';
import { mastodonStatus, startBlueskyFake, startMastodonFake } from './platforms.js';
import { workspaceOf } from './seed.js';
import { waitForRun } from './runs.js';
import { startTestServer, type TestServer } from './server.js';

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

export const getArtifact = (s: TestServer, id: string) => unwrap(s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id } } }));

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
  const bluesky = await startBlueskyFake({ posts: [{ rkey: '3kaaa', text: 'A post', createdAt: '2026-10-02T10:00:00.000Z', likeCount: 1, repostCount: 0, replyCount: 0, quoteCount: 0 }] });
  const s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake, bluesky.fake), ...bluesky.env, JOB_POLL_MS: '50', JOB_RETRY_BASE_MS: '300' } });
  const workspaceId = await workspaceOf(s.running.deps, s.token);
  await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
  await connect(s, { platform: 'bluesky', handle: bluesky.state.handle, auth_material: bluesky.state.appPassword });
  const pipelines = {} as Record<'mastodon' | 'bluesky', { id: string; postId: string }>;
  for (const [platform, handle] of [['mastodon', mastodon.handle], ['bluesky', bluesky.state.handle]] as const) {
    const { pipeline_id } = await ingest(s, handle);
    pipelines[platform] = { id: pipeline_id, postId: (await listAllPosts(s, pipeline_id))[0].id };
  }
  const stop = async () => {
    await s.stop();
    for (const f of [mastodon.fake, bluesky.fake]) await f.close();
  };
  return { s, mastodon, bluesky, workspaceId, pipelines, stop };
}
