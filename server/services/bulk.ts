// Bulk moves (POST /artifacts/bulk/transition, /artifacts/bulk/schedule): the single operations
// (artifact-moves.ts transitionArtifact, artifacts.ts publishArtifact) called once per artifact,
// in order, so that every rule and check of the single operation holds for each artifact, and a
// check added to them holds here too. A refusal of one artifact is its outcome (the status and
// error body the single operation answers), not the request's; the whole request is one
// idempotent request (the router's idempotency_key handling stores its 200).
import type { components } from '../../generated/api.js';
import { AppError } from '../errors.js';
import { calendarPage } from '../store/lists.js';
import { publishArtifact } from './artifacts.js';
import { transitionArtifact, type MoveTarget } from './artifact-moves.js';
import type { Caller, ServiceDeps } from './context.js';
import { publishTime } from './publish-time.js';

type S = components['schemas'];
type Outcome = S['BulkResult']['data'][number];

/** Runs `act` for each id in order; an AppError becomes that artifact's refusal, anything else fails the request. */
async function each(ids: string[], act: (id: string) => Promise<Omit<Outcome, 'artifact_id' | 'refusal'>>): Promise<S['BulkResult']> {
  const data: Outcome[] = [];
  for (const id of ids) {
    try {
      data.push({ artifact_id: id, ...(await act(id)), refusal: null });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      data.push({ artifact_id: id, status: err.status, state: null, scheduled_at: null, refusal: err.envelope() });
    }
  }
  const succeeded = data.filter((o) => o.refusal === null).length;
  return { data, succeeded, failed: data.length - succeeded };
}

export function bulkTransition(deps: ServiceDeps, caller: Caller, body: { to: MoveTarget; artifact_ids: string[] }): Promise<S['BulkResult']> {
  return each(body.artifact_ids, async (id) => {
    const a = await transitionArtifact(deps, caller, id, body.to);
    return { status: 200, state: a.state, scheduled_at: null };
  });
}

/** How far ahead the calendar is read for taken slots: every slot this request may need, plus as many taken ones. */
const MAX_TAKEN_READ = 1000;

export async function bulkSchedule(
  deps: ServiceDeps,
  caller: Caller,
  body: { artifact_ids: string[]; at: string; every_minutes: number; destinations?: S['PublishRequest']['destinations'] },
): Promise<S['BulkResult']> {
  // The first slot is checked as a single publish's `at` is (422 naming body.at): the request is refused whole.
  const first = publishTime({ at: body.at }, deps.clock.now())!.at;
  const every = body.every_minutes * 60_000;
  // What the calendar already holds from the first slot on (the request's own artifacts leave theirs).
  const own = new Set(body.artifact_ids);
  const scheduled = await calendarPage(deps.db, {
    workspaceId: caller.workspaceId,
    from: first,
    to: new Date(first.getTime() + every * (body.artifact_ids.length + MAX_TAKEN_READ)),
    after: null,
    limit: MAX_TAKEN_READ,
  });
  const taken = new Set(scheduled.filter((a) => !own.has(a.id)).map((a) => Math.floor((a.scheduledAt!.getTime() - first.getTime()) / every)));
  let slot = 0;
  return each(body.artifact_ids, async (id) => {
    while (taken.has(slot)) slot++;
    const at = new Date(first.getTime() + slot * every);
    const r = await publishArtifact(deps, caller, id, { at: at.toISOString(), ...(body.destinations ? { destinations: body.destinations } : {}) });
    taken.add(slot);
    return { status: r.status, state: r.body.artifact.state, scheduled_at: r.body.artifact.schedule?.at ?? at.toISOString() };
  });
}
