// The artifact moves the spec leaves open (docs/drafting.md, `ArtifactState` in the contract):
// approve (review → ready), reopen (ready → review) and discard (draft | review | ready →
// discarded). draft → review belongs to the drafting run, → published to publishArtifact.
import type { components } from '../../generated/api.js';
import { API_PREFIX, AppError, notFound, stateConflict } from '../errors.js';
import * as store from '../store/artifacts.js';
import type { Caller, ServiceDeps } from './context.js';
import { viewOf } from './artifacts.js';

export type MoveTarget = components['schemas']['ArtifactTransitionRequest']['to'];

/** For each target state, the states an artifact may leave for it. */
export const MOVES: Record<MoveTarget, string[]> = {
  ready: ['review'],
  review: ['ready'],
  discarded: ['draft', 'review', 'ready'],
};

function conflict(id: string, state: string, to: MoveTarget): AppError {
  const why = state === to ? `is already ${state}` : `is ${state}; only ${MOVES[to].join(', ')} can move to ${to}`;
  return stateConflict(`The artifact ${why}.`, {
    suggestedAction: 'fetch_artifact',
    suggestedEndpoint: `GET ${API_PREFIX}/artifacts/${id}`,
  });
}

export async function transitionArtifact(deps: ServiceDeps, caller: Caller, id: string, to: MoveTarget) {
  const a = await store.findArtifact(deps.db, caller.workspaceId, id);
  if (!a) throw notFound('artifact');
  if (!MOVES[to].includes(a.state)) throw conflict(id, a.state, to);
  // A compare-and-set: a concurrent move (or the drafting run finishing) may have won meanwhile.
  const moved = await store.transitionArtifact(deps.db, { id, workspaceId: caller.workspaceId, from: MOVES[to], to, now: deps.clock.now() });
  if (!moved) {
    const now = await store.findArtifact(deps.db, caller.workspaceId, id);
    throw conflict(id, now?.state ?? 'gone', to);
  }
  return viewOf(deps, moved);
}
