// The artifact moves the spec leaves open (docs/drafting.md, `ArtifactState` in the contract):
// approve (review → ready, recording who: services/approval.ts), reopen (ready → review,
// withdrawing the approval) and discard (draft | review | ready | scheduled | publish_failed →
// discarded). draft → review belongs to the drafting run, →
// published to publishArtifact. Discarding a scheduled artifact cancels its queued publish run
// in the same transaction; a run that already took it (publishing) wins, and the discard is 409.
import type { components } from '../../generated/api.js';
import { API_PREFIX, AppError, notFound, stateConflict } from '../errors.js';
import * as store from '../store/artifacts.js';
import { transaction } from '../store/database.js';
import { discardPublishing } from '../store/published-parts.js';
import { cancelQueuedRun } from '../store/runs.js';
import { releaseDestinations } from '../store/destinations.js';
import type { Caller, ServiceDeps } from './context.js';
import { viewOf } from './artifacts.js';
import { approverName } from './approval.js';

export type MoveTarget = components['schemas']['ArtifactTransitionRequest']['to'];

/** For each target state, the states an artifact may leave for it. */
export const MOVES: Record<MoveTarget, string[]> = {
  ready: ['review'],
  review: ['ready'],
  discarded: ['draft', 'review', 'ready', 'scheduled', 'publish_failed'],
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
  // Approving records who and when; reopening withdraws it (services/approval.ts). The scope
  // check made sure the caller holds `approve`.
  const approval = to === 'ready' ? { at: deps.clock.now(), by: await approverName(deps, caller) } : to === 'review' ? null : undefined;
  // A compare-and-set: a concurrent move (or the drafting run finishing) may have won meanwhile.
  const moved =
    a.state === 'scheduled' || a.state === 'publish_failed'
      ? await discardFromPublishing(deps, caller, a.state, a.publishRunId, id)
      : await store.transitionArtifact(deps.db, {
          id,
          workspaceId: caller.workspaceId,
          from: MOVES[to].filter((s) => s !== 'scheduled' && s !== 'publish_failed'),
          to,
          now: deps.clock.now(),
          approval,
        });
  if (!moved) {
    const now = await store.findArtifact(deps.db, caller.workspaceId, id);
    throw conflict(id, now?.state ?? 'gone', to);
  }
  return viewOf(deps, moved);
}

/**
 * scheduled | publish_failed → discarded. A scheduled artifact's queued run is cancelled with it
 * (`discarded`); if a worker claimed the run meanwhile, the run finds the artifact no longer
 * its own and does nothing. Parts of a failed thread already live stay live on the platform.
 */
function discardFromPublishing(deps: ServiceDeps, caller: Caller, state: 'scheduled' | 'publish_failed', runId: string | null, id: string) {
  return transaction(deps.db, async (tx) => {
    const now = deps.clock.now();
    const m = await discardPublishing(tx, { id, workspaceId: caller.workspaceId, from: [state], runId, now });
    if (m && state === 'scheduled' && runId) {
      await cancelQueuedRun(tx, { id: runId, now, code: 'discarded', message: 'The artifact was discarded before its publish time.' });
      await releaseDestinations(tx, { artifactId: id, runId, now });
    }
    return m;
  });
}
