// Destinations (issue 23): the connected accounts an artifact is published with, apart from the
// source its pipeline reads. A destination is named by account id or by (platform, handle); a
// pipeline has default destinations (JSON in Pipeline.destinations; null: its own account when
// its platform posts); an artifact has one ArtifactDestination row per destination.
import type { components } from '../../generated/api.js';
import { adapterFor, posts, POSTING_PLATFORMS, type Platform } from '../adapters/index.js';
import { API_PREFIX, credentialError, notFound, stateConflict, validationFailed, type AppError } from '../errors.js';
import * as accounts from '../store/accounts.js';
import type { AccountRow } from '../store/accounts.js';
import type { Db } from '../store/database.js';
import { isManual, type ChosenDestination, type DestinationRow } from '../store/destinations.js';
import * as pipelines from '../store/pipelines.js';
import type { PipelineRow } from '../store/pipelines.js';
import type { Caller, ServiceDeps } from './context.js';
import { credentialDead, credentialMissing, CONNECT_ENDPOINT } from './upstream.js';
import { pipelineDestinations, pipelineView } from './views.js';

type S = components['schemas'];
export type DestinationRef = S['DestinationRef'];

export { pipelineDestinations };

const chosenOf = (a: AccountRow): ChosenDestination => ({ destination: a.id, accountId: a.id, platform: a.platform, handle: a.handle });

/**
 * The accounts `refs` name, in order: by id or by (platform, handle). 424 `credential_missing`
 * for one not connected, 422 naming `field[i]` for one that cannot post or is named twice.
 * A dead account is refused with 424 `credential_dead` when `usable` (publishing), accepted otherwise.
 */
export async function resolveRefs(
  deps: ServiceDeps,
  workspaceId: string,
  refs: DestinationRef[],
  field: string,
  usable: boolean,
): Promise<ChosenDestination[]> {
  const out: ChosenDestination[] = [];
  for (const [i, ref] of refs.entries()) {
    let account: AccountRow | null;
    if (typeof ref === 'string') {
      account = await accounts.findAccountById(deps.db, workspaceId, ref);
      if (!account)
        throw credentialError('credential_missing', `${field}[${i}]: no connected account ${ref} in your workspace; connect it first.`, {
          suggestedAction: 'connect_account',
          suggestedEndpoint: CONNECT_ENDPOINT,
        });
    } else {
      account = await findAccountByHandle(deps.db, workspaceId, ref.platform, ref.handle);
      if (!account) throw credentialMissing(ref.platform, ref.handle);
    }
    if (!posts(account.platform))
      throw validationFailed(
        `${field}[${i}]`,
        `is the ${account.platform} account ${account.handle}, which cannot post; a destination is a connected ${POSTING_PLATFORMS.join(', ')} account.`,
      );
    if (out.some((c) => c.destination === account.id)) throw validationFailed(`${field}[${i}]`, `names ${account.platform} ${account.handle} a second time.`);
    if (usable && account.status === 'dead') throw credentialDead(account.platform as Platform, account.handle, account.lastProbeError);
    out.push(chosenOf(account));
  }
  return out;
}

async function findAccountByHandle(db: Db, workspaceId: string, platform: Platform, handle: string): Promise<AccountRow | null> {
  let normalized: string;
  try {
    normalized = adapterFor(platform).normalizeHandle(handle);
  } catch {
    return null;
  }
  return accounts.findAccount(db, workspaceId, platform, normalized);
}

/** The pipeline's defaults, resolved for a publish: each connected and not dead (424 otherwise). */
export async function defaultDestinations(deps: ServiceDeps, pipeline: PipelineRow): Promise<ChosenDestination[]> {
  const refs = pipelineDestinations(pipeline).map((d) => (d.account_id ?? { platform: d.platform, handle: d.handle }) as DestinationRef);
  return resolveRefs(deps, pipeline.workspaceId, refs, 'pipeline.destinations', true);
}

/** An artifact's destinations not yet live, resolved again for a publish that names none (resume). */
export async function pendingDestinations(deps: ServiceDeps, workspaceId: string, rows: DestinationRow[]): Promise<ChosenDestination[]> {
  const open = rows.filter((r) => r.state !== 'live' && !isManual(r));
  return resolveRefs(
    deps,
    workspaceId,
    open.map((r) => r.accountId ?? r.destination),
    'artifact.destinations',
    true,
  );
}

/** 409 (or 424) when a publish has nowhere to go, naming what is missing. */
export async function noDestination(deps: ServiceDeps, pipeline: PipelineRow, artifactId: string): Promise<AppError> {
  const any = await accounts.hasAccountOn(deps.db, pipeline.workspaceId, [...POSTING_PLATFORMS]);
  const source = `the pipeline reads ${pipeline.platform} ${pipeline.handle}`;
  if (!any)
    return credentialError(
      'credential_missing',
      `The artifact ${artifactId} has no destination: ${source}, which this service cannot post to, and your workspace has no account that can post (${POSTING_PLATFORMS.join(', ')}). Connect one (POST ${API_PREFIX}/accounts/connect), then publish with destinations, or record a post made by hand with POST ${API_PREFIX}/artifacts/${artifactId}/mark-published.`,
      { suggestedAction: 'connect_account', suggestedEndpoint: CONNECT_ENDPOINT },
    );
  return stateConflict(
    `The artifact ${artifactId} has no destination: the request names none and ${source}, with no default destinations. Send destinations (account ids or {platform, handle}), or set the pipeline's defaults with PUT ${API_PREFIX}/pipelines/${pipeline.id}/destinations.`,
    { suggestedAction: 'set_destinations', suggestedEndpoint: `PUT ${API_PREFIX}/pipelines/${pipeline.id}/destinations` },
  );
}

/** PUT /pipelines/{id}/destinations. */
export async function setDestinations(deps: ServiceDeps, caller: Caller, id: string, refs: DestinationRef[]): Promise<S['Pipeline']> {
  const found = await pipelines.findPipeline(deps.db, caller.workspaceId, id);
  if (!found) throw notFound('pipeline');
  const chosen = await resolveRefs(deps, caller.workspaceId, refs, 'body.destinations', false);
  await pipelines.setPipelineDestinations(deps.db, { workspaceId: caller.workspaceId, id, destinations: storedDestinations(chosen), now: deps.clock.now() });
  const again = await pipelines.findPipelineWithStats(deps.db, caller.workspaceId, id);
  if (!again) throw notFound('pipeline');
  return pipelineView(again.pipeline, again.counts, again.last);
}

/** The JSON Pipeline.destinations holds. */
export function storedDestinations(chosen: ChosenDestination[]): string {
  return JSON.stringify(chosen.map((c) => ({ account_id: c.accountId, platform: c.platform, handle: c.handle })));
}
