// Pipelines: create or resume from (handle, intent), and read.
import type { components } from '../../generated/api.js';
import { notFound } from '../errors.js';
import * as store from '../store/pipelines.js';
import { findRun } from '../store/runs.js';
import { enqueueRun } from '../jobs/enqueue.js';
import { platformOf, TARGET_PLATFORMS } from '../platforms/index.js';
import { platformOfConnectedHandle } from './accounts.js';
import { resolveRefs, storedDestinations, type DestinationRef } from './destinations.js';
import type { Caller, CommitHook, ServiceDeps } from './context.js';
import { pipelineView, runView } from './views.js';

type Platform = components['schemas']['Platform'];
type FromIntentResponse = components['schemas']['FromIntentResponse'];

/**
 * The platform a handle belongs to: an http(s) URL is a feed; a handle of a form that a platform's
 * folder claims (`handleForm`: `@user@instance` is Mastodon, a domain name like `user.bsky.social`
 * Bluesky) is that platform's; anything else names an imported archive.
 */
export function platformForHandle(handle: string): Platform {
  if (/^https?:\/\//i.test(handle)) return 'rss';
  return TARGET_PLATFORMS.find((p) => platformOf(p).handleForm?.test(handle)) ?? 'archive';
}

export async function getPipeline(deps: ServiceDeps, caller: Caller, id: string) {
  const found = await store.findPipelineWithStats(deps.db, caller.workspaceId, id);
  if (!found) throw notFound('pipeline');
  return pipelineView(found.pipeline, found.counts, found.last);
}

/** A run of the caller's workspace, by id (any kind, with or without a pipeline). */
export async function getRun(deps: ServiceDeps, caller: Caller, id: string) {
  const run = await findRun(deps.db, caller.workspaceId, id);
  if (!run) throw notFound('run');
  return runView(run);
}

/**
 * Creates or resumes the pipeline and queues its ingest. The platform is that of a connected
 * account with exactly this handle (an archive's name can look like a domain), else the form of
 * the handle. Credentials are checked by the ingest run, not here: a pipeline can be set up
 * before its account is connected, and its run then fails with `credential_missing` (and an
 * `operator.error` event; diagnose suggests `connect_account`).
 */
export async function createFromIntent(
  deps: ServiceDeps,
  caller: Caller,
  input: { handle: string; intent: string; tone?: string; destinations?: DestinationRef[] },
  onCommit?: CommitHook<FromIntentResponse>,
) {
  const platform = (await platformOfConnectedHandle(deps, caller.workspaceId, input.handle)) ?? platformForHandle(input.handle);
  // Where its artifacts are published by default: checked before anything is written (422/424).
  const destinations = input.destinations
    ? storedDestinations(await resolveRefs(deps, caller.workspaceId, input.destinations, 'body.destinations', false))
    : undefined;
  const { answer } = await store.upsertPipelineWithRun(
    deps.db,
    {
      pipelineId: deps.ids.id('pl'),
      workspaceId: caller.workspaceId,
      handle: input.handle,
      intent: input.intent,
      tone: input.tone ?? null,
      platform,
      now: deps.clock.now(),
      destinations,
    },
    async (tx, p, resumed) => {
      const run = await enqueueRun(tx, deps, { workspaceId: caller.workspaceId, pipelineId: p.id, kind: 'ingest', input: {} });
      const answer: FromIntentResponse = { pipeline_id: p.id, run_id: run.id, resumed };
      await onCommit?.(tx, answer);
      return answer;
    },
  );
  deps.jobs.kick();
  return answer;
}
