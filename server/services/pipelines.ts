// Pipelines: create or resume from (handle, intent), and read.
import type { components } from '../../generated/api.js';
import { notFound } from '../errors.js';
import * as store from '../store/pipelines.js';
import type { Caller, ServiceDeps } from './context.js';
import { pipelineView } from './views.js';

type Platform = components['schemas']['Platform'];

/**
 * The platform a handle belongs to: `@user@instance` is Mastodon, an `https://` URL is a feed,
 * a domain name (`user.bsky.social`) is Bluesky, anything else names an imported archive.
 */
export function platformForHandle(handle: string): Platform {
  if (/^@[^@\s]+@[^@\s]+\.[^@\s]+$/.test(handle)) return 'mastodon';
  if (/^https:\/\//i.test(handle)) return 'rss';
  if (/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(handle)) return 'bluesky';
  return 'archive';
}

export async function getPipeline(deps: ServiceDeps, caller: Caller, id: string) {
  const p = await store.findPipeline(deps.db, caller.workspaceId, id);
  if (!p) throw notFound('pipeline');
  const [counts, last] = await Promise.all([store.pipelineCounts(deps.db, p.id), store.lastRun(deps.db, p.id)]);
  return pipelineView(p, counts, last);
}

export async function createFromIntent(deps: ServiceDeps, caller: Caller, input: { handle: string; intent: string; tone?: string }) {
  const { pipeline, run, resumed } = await store.upsertPipelineWithRun(deps.db, {
    pipelineId: deps.ids.id('pl'),
    runId: deps.ids.id('run'),
    workspaceId: caller.workspaceId,
    handle: input.handle,
    intent: input.intent,
    tone: input.tone ?? null,
    platform: platformForHandle(input.handle),
    now: deps.clock.now(),
  });
  return { pipeline_id: pipeline.id, run_id: run.id, resumed };
}
