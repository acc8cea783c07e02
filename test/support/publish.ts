// Publishing in tests: the 200 answer (nothing to post) as an Artifact, and a publish followed
// to the end of its run.
import type { Schemas } from '../../clients/typescript/src/index.js';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { V1 } from './pipelines.js';
import { waitForRun } from './runs.js';
import type { TestServer } from './server.js';

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
