// Platform variants: an artifact's text for each target platform, adapted to the platform's rules
// and split into a thread when it does not fit one post (services/platform-text.ts holds the rules).
// Drafting derives them from the artifact's text; the agent can send its own text or its own split
// (`PUT /artifacts/{id}/variants/{platform}`); publishing asks `publishableParts` what to post.
import type { components } from '../../generated/api.js';
import { API_PREFIX, notFound, retryLater, stateConflict, validationFailed, type AppError } from '../errors.js';
import { findArtifact, type ArtifactRow } from '../store/artifacts.js';
import { listParts } from '../store/published-parts.js';
import { listDestinations } from '../store/destinations.js';
import { transaction, type Db } from '../store/database.js';
import * as store from '../store/variants.js';
import type { VariantRow, VariantValues } from '../store/variants.js';
import type { Caller, ServiceDeps } from './context.js';
import { afterEdit } from './approval.js';
import {
  adaptText,
  extrasOfPart,
  isTargetPlatform,
  postProblem,
  splitThread,
  TARGET_PLATFORMS,
  trimBreakable,
  type PostExtras,
  type TargetPlatform,
} from './platform-text.js';

type VariantRequest = components['schemas']['VariantRequest'];

/**
 * The states in which an artifact's variants may change: written, not (being) published or
 * discarded; and `publish_failed`, to fix the parts not yet live before publishing again.
 */
export const VARIANT_EDITABLE_STATES = ['review', 'ready', 'publish_failed'];

/**
 * A variant derived from a text: adapted to the platform, split when it does not fit, the first
 * part counted with the artifact's content warning (`contentWarning`), which goes with it.
 */
export function deriveVariant(
  platform: TargetPlatform,
  text: string,
  opts: { numbered: boolean; origin: 'drafted' | 'text'; contentWarning: string | null },
): VariantValues {
  const adapted = adaptText(platform, text);
  const split = splitThread(platform, adapted, { numbered: opts.numbered, contentWarning: opts.contentWarning });
  return {
    platform,
    text: adapted,
    parts: split.ok ? split.parts : [],
    numbered: opts.numbered,
    origin: opts.origin,
    problem: split.ok ? null : split.reason,
  };
}

/** The variants a freshly written artifact gets, one per target (inside the transaction that writes its text). */
export async function addDraftedVariants(tx: Db, a: ArtifactRow, targets: TargetPlatform[], now: Date): Promise<void> {
  await store.insertVariants(
    tx,
    a,
    targets.map((t) => deriveVariant(t, a.text, { numbered: false, origin: 'drafted', contentWarning: a.contentWarning })),
    now,
  );
}

/**
 * What to post on `platform` for this artifact, in order: the variant's parts (one, or a thread),
 * or the artifact's text as one part when it has no variant for the platform. A variant whose text
 * could not be split is `409 state_conflict` with the reason: the agent must send a text or parts.
 * Whether each part fits as it will be posted is the adapter's `refusesText`, asked with
 * `extrasOfPart` (the first part carries the content warning). `deps.db` may be a transaction.
 */
export async function publishableParts(deps: { db: Db }, artifact: ArtifactRow, platform: string): Promise<string[]> {
  const v = await store.findVariant(deps.db, artifact.workspaceId, artifact.id, platform);
  if (!v) return [artifact.text];
  const parts = JSON.parse(v.parts) as string[];
  if (v.problem !== null || !parts.length) {
    throw stateConflict(
      `The ${platform} variant of artifact ${artifact.id} cannot be posted: ${v.problem ?? 'it has no parts'}. Send its text or parts with PUT ${API_PREFIX}/artifacts/${artifact.id}/variants/${platform}.`,
      {
        suggestedAction: 'fetch_artifact',
        suggestedEndpoint: `GET ${API_PREFIX}/artifacts/${artifact.id}`,
      },
    );
  }
  return parts;
}

/**
 * Why a stored variant cannot be posted as it is, or null: its text could not be split, it has
 * no parts, or a part no longer fits the platform (the limits changed since it was written, or it
 * was written before the content warning was counted; the first part is counted with
 * `contentWarning`, the artifact's).
 */
export function variantProblem(v: Pick<VariantRow, 'platform' | 'parts' | 'problem'>, contentWarning: string | null): string | null {
  if (v.problem !== null) return `its text could not be split into posts: ${v.problem}`;
  const parts = JSON.parse(v.parts) as string[];
  if (!parts.length) return 'it has no parts';
  if (!isTargetPlatform(v.platform)) return null;
  return partsProblem(v.platform, parts, contentWarning);
}

/** Why one of the parts cannot be posted on the platform as it is (the first counted with the content warning it carries), or null. */
function partsProblem(platform: TargetPlatform, parts: string[], contentWarning: string | null): string | null {
  for (const [i, p] of parts.entries()) {
    const problem = postProblem(platform, p, extrasOfPart(i, contentWarning));
    if (problem) return `part ${i + 1} of ${parts.length} ${problem}`;
  }
  return null;
}

/**
 * The first part the platform's adapter refuses as it would be posted (the first part with the
 * content warning it carries), with the adapter's reason; null when it takes them all. Asked when
 * a publish is requested (now or for later) and again by the run before it posts anything.
 */
export function refusedPart(
  adapter: { refusesText?(text: string, extras?: PostExtras): string | null },
  parts: string[],
  contentWarning: string | null,
): { position: number; why: string } | null {
  for (const [i, text] of parts.entries()) {
    const why = adapter.refusesText?.(text, extrasOfPart(i, contentWarning));
    if (why) return { position: i, why };
  }
  return null;
}

export function listVariants(deps: { db: Db }, a: Pick<ArtifactRow, 'id' | 'workspaceId'>): Promise<VariantRow[]> {
  return store.listVariants(deps.db, a.workspaceId, a.id);
}

/** The agent's own split, validated: every part (with its numbering, the first with the content warning it carries) must be one post. */
function ownParts(platform: TargetPlatform, sent: string[], numbered: boolean, contentWarning: string | null): VariantValues {
  const trimmed = sent.map(trimBreakable);
  const n = trimmed.length;
  const parts = trimmed.map((p, i) => (numbered && n > 1 ? `${p} ${i + 1}/${n}` : p));
  parts.forEach((p, i) => {
    const problem = trimmed[i] ? postProblem(platform, p, extrasOfPart(i, contentWarning)) : 'is empty';
    if (problem) throw validationFailed(`body.parts[${i}]`, `${problem}${numbered && n > 1 ? ` (its numbering " ${i + 1}/${n}" included)` : ''}.`);
  });
  return { platform, text: trimmed.join('\n\n'), parts, numbered, origin: 'parts', problem: null };
}

function refusal(a: ArtifactRow): AppError {
  const extras = { suggestedEndpoint: `GET ${API_PREFIX}/artifacts/${a.id}` };
  if (a.state === 'draft') {
    return retryLater(`The artifact ${a.id} is still being written; send its variants once it is in review.`, extras);
  }
  if (a.state === 'scheduled') {
    return stateConflict(
      `The artifact ${a.id} is scheduled; its variants are frozen until it goes out. Unschedule it (back to ready), change the variant, then publish it again with its time.`,
      {
        suggestedAction: 'unschedule_artifact',
        suggestedEndpoint: `DELETE ${API_PREFIX}/artifacts/${a.id}/schedule`,
      },
    );
  }
  return stateConflict(`The artifact ${a.id} is ${a.state}; its variants can change only while it is in review, ready or publish_failed.`, {
    ...extras,
    suggestedAction: 'fetch_artifact',
  });
}

/**
 * After a failed publish, the parts already live stay as they were posted: a new variant for a
 * platform with parts live at one of the artifact's destinations must begin with them, unchanged
 * (a thread's numbering included), so that publishing again posts only the fixed rest as replies.
 * Other platforms' variants are free.
 */
async function keepLiveParts(deps: ServiceDeps, a: ArtifactRow, platform: string, values: VariantValues, field: 'body.parts' | 'body.text'): Promise<void> {
  const at = new Set((await listDestinations(deps.db, a.id)).filter((d) => d.platform === platform).map((d) => d.destination));
  if (!at.size) return;
  const live = (await listParts(deps.db, a.id)).filter((p) => at.has(p.destination));
  if (!live.length) return;
  const old = await store.findVariant(deps.db, a.workspaceId, a.id, platform);
  const posted = old ? (JSON.parse(old.parts) as string[]) : [a.text];
  for (const p of live) {
    if (values.parts[p.position] === posted[p.position]) continue;
    const at = field === 'body.parts' ? `body.parts[${p.position}]` : field;
    throw validationFailed(
      at,
      `would change part ${p.position + 1}, which is already live (${p.url ?? p.externalId}); after a failed publish, send parts that begin with the ${live.length} live part${live.length === 1 ? '' : 's'} as posted (numbering included) and fix only the rest.`,
    );
  }
}

/**
 * PUT /artifacts/{id}/variants/{platform}: creates the variant (adding the platform as a target)
 * or replaces it. `parts` is the agent's split, `text` a text to split here, neither the
 * artifact's own text; `numbered` numbers a thread.
 */
export async function putVariant(deps: ServiceDeps, caller: Caller, id: string, platform: string, body: VariantRequest) {
  if (!isTargetPlatform(platform)) throw validationFailed('path.platform', `is not a target platform (${TARGET_PLATFORMS.join(', ')}).`);
  const a = await findArtifact(deps.db, caller.workspaceId, id);
  if (!a) throw notFound('artifact');
  if (!VARIANT_EDITABLE_STATES.includes(a.state)) throw refusal(a);
  if (body.text !== undefined && body.parts !== undefined)
    throw validationFailed('body.parts', 'cannot be given with text: send text (split for you) or parts (your own split).');
  const numbered = body.numbered ?? false;
  let values: VariantValues;
  if (body.parts !== undefined) values = ownParts(platform, body.parts, numbered, a.contentWarning);
  else {
    const text = body.text ?? a.text;
    if (!trimBreakable(text)) throw validationFailed('body.text', 'is empty.');
    values = deriveVariant(platform, text, { numbered, origin: body.text !== undefined ? 'text' : 'drafted', contentWarning: a.contentWarning });
    if (values.problem) {
      const whose = body.text !== undefined ? 'cannot' : "is required: the artifact's own text cannot";
      throw validationFailed('body.text', `${whose} be posted on ${platform}: ${values.problem}. Send parts to split it yourself.`);
    }
  }
  if (a.state === 'publish_failed') await keepLiveParts(deps, a, platform, values, body.parts !== undefined ? 'body.parts' : 'body.text');
  const done = await transaction(deps.db, async (tx) => {
    const put = await store.putVariant(tx, {
      workspaceId: caller.workspaceId,
      artifactId: a.id,
      states: VARIANT_EDITABLE_STATES,
      values,
      now: deps.clock.now(),
    });
    // A change by a caller who cannot approve withdraws the approval (the approval gate).
    if (put?.changed) await afterEdit(tx, deps, caller, a.id);
    return put;
  });
  if (!done) {
    const now = await findArtifact(deps.db, caller.workspaceId, id);
    throw now ? refusal(now) : notFound('artifact');
  }
  return { ...done, contentWarning: a.contentWarning };
}
