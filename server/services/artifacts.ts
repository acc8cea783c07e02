// Artifacts: read, and publish by the state rules of the spec.
import { API_PREFIX, AppError, notFound } from '../errors.js';
import * as store from '../store/artifacts.js';
import type { ArtifactRow } from '../store/artifacts.js';
import type { Caller, ServiceDeps } from './context.js';
import { artifactView } from './views.js';
import { listVariants } from './variants.js';
import { adapterFor, AdapterError, type Platform } from '../adapters/index.js';
import { findPipeline, type PipelineRow } from '../store/pipelines.js';
import * as claims from '../store/idempotency.js';
import { adapterContext, markAccountDead, requireAccount } from './accounts.js';
import { upstreamAppError } from './upstream.js';

export async function getArtifact(deps: ServiceDeps, caller: Caller, id: string) {
  const a = await store.findArtifact(deps.db, caller.workspaceId, id);
  if (!a) throw notFound('artifact');
  return viewOf(deps, a);
}

/** The artifact as the contract shows it, with its variants. */
export async function viewOf(deps: ServiceDeps, a: ArtifactRow) {
  return artifactView(a, await listVariants(deps, a));
}

const PUBLISHABLE = ['review', 'ready'];

function refusal(state: string, id: string): AppError {
  const extras = { suggestedAction: 'fetch_artifact', suggestedEndpoint: `GET ${API_PREFIX}/artifacts/${id}` };
  if (state === 'draft') {
    return new AppError(403, 'forbidden', 'The artifact is still a draft; move it to review or ready before publishing.', extras);
  }
  return new AppError(409, 'state_conflict', `The artifact is ${state} and cannot be published.`, extras);
}

/**
 * review | ready → published. A draft is 403; discarded or published is 409. When the
 * pipeline's platform can publish (mastodon, bluesky), the text is posted through the account's
 * adapter first (see publishUpstream); rss and archive pipelines are marked published only.
 */
export async function publishArtifact(deps: ServiceDeps, caller: Caller, id: string, opts: { confirmNonPublic?: boolean } = {}) {
  const a = await store.findArtifact(deps.db, caller.workspaceId, id);
  if (!a) throw notFound('artifact');
  if (!PUBLISHABLE.includes(a.state)) throw refusal(a.state, id);
  // Nothing written for followers or connections goes public by accident.
  if (!PUBLIC_AUDIENCES.has(a.sourceVisibility) && !opts.confirmNonPublic) {
    throw new AppError(403, 'forbidden', `The artifact ${id} is drawn from ${a.sourceVisibility}-only posts; publishing it makes that text public. Send confirm_non_public: true to publish it anyway.`, {
      suggestedAction: 'fetch_artifact',
      suggestedEndpoint: `GET ${API_PREFIX}/artifacts/${id}`,
    });
  }
  const pipeline = await findPipeline(deps.db, caller.workspaceId, a.pipelineId);
  const adapter = pipeline ? adapterFor(pipeline.platform) : null;
  if (pipeline && adapter?.publish) return viewOf(deps, await publishUpstream(deps, caller, a, pipeline));
  const moved = await store.transitionArtifact(deps.db, { id, workspaceId: caller.workspaceId, from: PUBLISHABLE, to: 'published', now: deps.clock.now() });
  if (!moved) {
    const now = await store.findArtifact(deps.db, caller.workspaceId, id);
    throw refusal(now?.state ?? 'gone', id);
  }
  return viewOf(deps, moved);
}

const PUBLIC_AUDIENCES = new Set(['public', 'unlisted']);

/** Every state but published: once the text is live upstream, the artifact is published whatever happened meanwhile. */
const NOT_PUBLISHED = ['draft', 'review', 'ready', 'discarded'];
/** How long one publish holds its artifact before another may take over (longer than the adapter's calls). */
const PUBLISH_LEASE_MS = 2 * 60 * 1000;
const PUBLISH_RECORD_MS = 24 * 60 * 60 * 1000;

/**
 * Posts the artifact upstream exactly once. A claim row per artifact (in the idempotency store,
 * operation `upstream-publish`, key the artifact id) makes concurrent publishes with different
 * keys take turns: the second sees the claim (409 `retry_later`), then the published state (409).
 * The adapter also gets a key fixed for the artifact (Mastodon's Idempotency-Key, Bluesky's record
 * key), so a publish retried after a crash between the upstream post and our commit is recognised
 * upstream rather than posted twice. Upstream failures leave the artifact as it was.
 */
async function publishUpstream(deps: ServiceDeps, caller: Caller, a: ArtifactRow, pipeline: PipelineRow): Promise<ArtifactRow> {
  const platform = pipeline.platform as Platform;
  const account = await requireAccount(deps, caller.workspaceId, platform, pipeline.handle);
  if (!account) throw new Error(`${platform} can publish but needs no account`);
  const now = deps.clock.now();
  const claim = { workspaceId: caller.workspaceId, operation: 'upstream-publish', key: a.id };
  const held = await claims.claimKey(deps.db, deps.provider, { ...claim, requestHash: 'artifact', now, lockedUntil: new Date(now.getTime() + PUBLISH_LEASE_MS), expiresAt: new Date(now.getTime() + PUBLISH_RECORD_MS) });
  if (held) {
    throw new AppError(409, 'state_conflict', 'The artifact is being published by another request; fetch it in a moment.', {
      suggestedAction: 'retry_later',
      suggestedEndpoint: `GET ${API_PREFIX}/artifacts/${a.id}`,
    });
  }
  let url: string | null;
  try {
    const adapter = adapterFor(platform);
    const done = await adapter.publish!(adapterContext(deps, account.proxyUrl), account.account.handle, account.creds, a.text, { id: a.id, createdAt: a.createdAt });
    url = done.url;
  } catch (err) {
    await claims.releaseKey(deps.db, claim);
    if (err instanceof AdapterError && err.kind === 'credential_rejected') await markAccountDead(deps, null, account.account.id, err.message);
    if (err instanceof AdapterError && err.kind === 'invalid_input') {
      throw new AppError(409, 'state_conflict', `The artifact cannot be published on ${platform} as it is: ${err.message}.`, { suggestedAction: 'fetch_artifact', suggestedEndpoint: `GET ${API_PREFIX}/artifacts/${a.id}` });
    }
    throw upstreamAppError(err, { platform, handle: pipeline.handle, probe: false });
  }
  const moved = await store.transitionArtifact(deps.db, { id: a.id, workspaceId: caller.workspaceId, from: NOT_PUBLISHED, to: 'published', now: deps.clock.now(), publishedUrl: url });
  await claims.completeKey(deps.db, { ...claim, status: 200, body: JSON.stringify({ url }) });
  if (!moved) throw refusal('published', a.id);
  return moved;
}
