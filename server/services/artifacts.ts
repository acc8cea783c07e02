// Artifacts: read, and publish by the state rules of the spec.
import { API_PREFIX, AppError, notFound } from '../errors.js';
import * as store from '../store/artifacts.js';
import type { Caller, ServiceDeps } from './context.js';
import { artifactView } from './views.js';

export async function getArtifact(deps: ServiceDeps, caller: Caller, id: string) {
  const a = await store.findArtifact(deps.db, caller.workspaceId, id);
  if (!a) throw notFound('artifact');
  return artifactView(a);
}

const PUBLISHABLE = ['review', 'ready'];

function refusal(state: string, id: string): AppError {
  const extras = { suggestedAction: 'fetch_artifact', suggestedEndpoint: `GET ${API_PREFIX}/artifacts/${id}` };
  if (state === 'draft') {
    return new AppError(403, 'forbidden', 'The artifact is still a draft; move it to review or ready before publishing.', extras);
  }
  return new AppError(409, 'state_conflict', `The artifact is ${state} and cannot be published.`, extras);
}

/** review | ready → published. A draft is 403; discarded or published is 409. */
export async function publishArtifact(deps: ServiceDeps, caller: Caller, id: string) {
  const a = await store.findArtifact(deps.db, caller.workspaceId, id);
  if (!a) throw notFound('artifact');
  if (!PUBLISHABLE.includes(a.state)) throw refusal(a.state, id);
  const moved = await store.transitionArtifact(deps.db, { id, workspaceId: caller.workspaceId, from: PUBLISHABLE, to: 'published', now: deps.clock.now() });
  if (!moved) {
    const now = await store.findArtifact(deps.db, caller.workspaceId, id);
    throw refusal(now?.state ?? 'gone', id);
  }
  return artifactView(moved);
}
