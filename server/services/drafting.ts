// Drafting: `POST /posts/{id}/draft` reserves an artifact (state `draft`, empty text) and queues
// the run that writes it; the run (`draft` and `regenerate_variant` jobs) asks the writer for the
// text and moves the artifact to `review`, emitting riff.ready / riff.refined (brief.ready /
// brief.refined for a brief). A run that fails for good discards its artifact. docs/drafting.md
// has the whole design.
import type { components } from '../../generated/api.js';
import { API_PREFIX, AppError, notFound, stateConflict, validationFailed } from '../errors.js';
import { carriedMedia, mediaOf, uploadIdsOf, type ArtifactMediaItem } from './media-items.js';
import { enqueueRun } from '../jobs/enqueue.js';
import { JobError, type JobContext, type JobHandler, type JobHooks } from '../jobs/registry.js';
import { findArtifact, type ArtifactRow } from '../store/artifacts.js';
import * as drafts from '../store/drafts.js';
import type { DraftTx } from '../store/drafts.js';
import { recordAudit, SYSTEM } from './audit.js';
import { latestImport } from '../store/imports.js';
import type { PipelineRow } from '../store/pipelines.js';
import { findPost, RETIRED, type PostRow } from '../store/posts.js';
import type { RunRow } from '../store/runs.js';
import { loadArtifact, loadDecodes, loadPipeline, loadPosts } from '../store/run-reads.js';
import { writerFor } from '../writers/index.js';
import type { DraftInput, SourceMaterial } from '../writers/types.js';
import type { Caller, CommitHook, ServiceDeps } from './context.js';
import { recordEvent } from './events.js';
import { sourcesOf } from './views.js';
import { isTargetPlatform, type TargetPlatform } from './platform-text.js';
import { addDraftedVariants, listVariants } from './variants.js';

type DraftRequest = components['schemas']['DraftRequest'];
type DraftAccepted = components['schemas']['DraftAccepted'];

/** What a drafting run needs to know beyond its artifact (kept in the run's input). */
export interface DraftRunInput extends Record<string, unknown> {
  artifact_id: string;
  style_reference: string | null;
  /** The platforms the request named (`targets`); absent: the defaults, resolved when the text is written. */
  targets?: TargetPlatform[];
}

export interface Lineage {
  workspaceId: string;
  pipelineId: string;
  /** The sources, the drafted-from post first. */
  sources: string[];
  parent: ArtifactRow | null;
  /** The most restricted audience among the sources: what publishing the artifact must respect. */
  visibility: string;
  /** The media a new first draft carries from its sources (a re-draft carries its parent's). */
  media?: ArtifactMediaItem[];
  /** The content warning a new first draft carries: the first among its sources (a re-draft carries its parent's). */
  contentWarning?: string | null;
}

/** Queues the run that writes a reserved artifact, inside the transaction that reserved it. */
export function queueDraftRun(
  tx: DraftTx,
  deps: ServiceDeps,
  l: Lineage,
  kind: 'draft' | 'regenerate_variant',
  artifactId: string,
  styleReference: string | null,
  targets?: TargetPlatform[],
): Promise<RunRow> {
  const input: DraftRunInput = { artifact_id: artifactId, style_reference: styleReference, ...(targets ? { targets } : {}) };
  return enqueueRun(tx, deps, { workspaceId: l.workspaceId, pipelineId: l.pipelineId, kind, input });
}

/** The new artifact's row for a lineage: a first draft is its own root; a re-draft extends its parent's line. */
export function newArtifactFor(deps: ServiceDeps, l: Lineage) {
  const id = deps.ids.id('art');
  const p = l.parent;
  return {
    id,
    workspaceId: l.workspaceId,
    pipelineId: l.pipelineId,
    sourcePostId: l.sources[0]!,
    moreSourcePostIds: l.sources.slice(1),
    parentArtifactId: p?.id ?? null,
    rootArtifactId: p?.rootArtifactId ?? id,
    generation: p ? p.generation + 1 : 0,
    ancestors: p ? [p.id, ...(JSON.parse(p.ancestors) as string[])] : [],
    text: '',
    state: 'draft',
    sourceVisibility: l.visibility,
    contentWarning: p ? p.contentWarning : (l.contentWarning ?? null),
    media: mediaFor(l),
    now: deps.clock.now(),
  };
}

/** A re-draft carries its parent's media list as it is (order, alt text, uploads); a first draft its sources'. */
function mediaFor(l: Lineage): { json: string; uploadIds: string[] } {
  if (l.parent) return { json: l.parent.media, uploadIds: uploadIdsOf(mediaOf(l.parent)) };
  const items = l.media ?? [];
  return { json: JSON.stringify(items), uploadIds: uploadIdsOf(items) };
}

const OPENNESS = ['public', 'unlisted', 'followers', 'connections', RETIRED];
/** The most restricted of the sources' audiences (LinkedIn's connections count as the narrowest). */
export function narrowest(visibilities: string[]): string {
  return visibilities.reduce((a, b) => (OPENNESS.indexOf(b) > OPENNESS.indexOf(a) ? b : a), 'public');
}

/** A parent must be written before it can be re-drafted: its text is what the child departs from. */
export function requireWritten(parent: ArtifactRow): void {
  if (parent.state !== 'draft') return;
  throw new AppError(409, 'state_conflict', `The artifact ${parent.id} is still being written; re-draft it once it is in review.`, {
    suggestedAction: 'retry_later',
    suggestedEndpoint: `GET ${API_PREFIX}/artifacts/${parent.id}`,
  });
}

async function lineageFor(deps: ServiceDeps, caller: Caller, post: PostRow, body: DraftRequest): Promise<Lineage> {
  const base = { workspaceId: caller.workspaceId, pipelineId: post.pipelineId };
  if (body.parent_artifact_id !== undefined) {
    if (body.additional_post_ids !== undefined) {
      throw validationFailed('body.additional_post_ids', "cannot be given with parent_artifact_id: a re-draft keeps its parent's sources.");
    }
    const parent = await findArtifact(deps.db, caller.workspaceId, body.parent_artifact_id);
    if (!parent) throw validationFailed('body.parent_artifact_id', 'names no artifact of your workspace.');
    if (parent.sourcePostId !== post.id) {
      throw validationFailed('body.parent_artifact_id', `was drafted from another post (${parent.sourcePostId}); re-draft it through that post.`);
    }
    requireWritten(parent);
    return { ...base, sources: sourcesOf(parent), parent, visibility: parent.sourceVisibility };
  }
  const more = body.additional_post_ids ?? [];
  if (more.includes(post.id)) throw validationFailed('body.additional_post_ids', 'must not repeat the post of the path.');
  const found = more.length ? await drafts.findPosts(deps.db, caller.workspaceId, more) : [];
  const foreign = more.filter((id) => !found.some((p) => p.id === id && p.pipelineId === post.pipelineId));
  if (foreign.length) throw validationFailed('body.additional_post_ids', `must be posts of the same pipeline; not: ${foreign.join(', ')}.`);
  const retired = found.filter((p) => p.visibility === RETIRED).map((p) => p.id);
  if (retired.length)
    throw validationFailed('body.additional_post_ids', `must be source posts; these were direct messages and are retired: ${retired.join(', ')}.`);
  // Sources in the order given (the drafted-from post first), each with its media.
  const ordered = [post, ...more.map((id) => found.find((p) => p.id === id)!)];
  return {
    ...base,
    sources: [post.id, ...more],
    parent: null,
    visibility: narrowest(ordered.map((p) => p.visibility)),
    media: carriedMedia(ordered),
    contentWarning: ordered.find((p) => p.contentWarning)?.contentWarning ?? null,
  };
}

/** A retired post (a direct message an older version stored as a source) is never drafted from. */
const retiredPost = (p: PostRow) =>
  stateConflict(`The post ${p.id} is a direct message and was retired as a source; nothing can be drafted from it.`, {
    suggestedAction: 'diagnose_pipeline',
    suggestedEndpoint: `GET ${API_PREFIX}/pipelines/${p.pipelineId}/diagnose`,
  });

/** POST /posts/{id}/draft: reserves the artifact and queues its run; answers both ids. */
export async function draftFromPost(deps: ServiceDeps, caller: Caller, postId: string, body: DraftRequest, onCommit?: CommitHook<DraftAccepted>) {
  const post = await findPost(deps.db, caller.workspaceId, postId);
  if (!post) throw notFound('post');
  if (post.visibility === RETIRED) throw retiredPost(post);
  const lineage = await lineageFor(deps, caller, post, body);
  const accepted = await drafts.reserveArtifact(deps.db, newArtifactFor(deps, lineage), async (tx, artifact) => {
    const run = await queueDraftRun(tx, deps, lineage, 'draft', artifact.id, body.style_reference ?? null, body.targets);
    const answer: DraftAccepted = { run_id: run.id, artifact_id: artifact.id };
    await onCommit?.(tx, answer);
    return answer;
  });
  deps.jobs.kick('drafting');
  return accepted;
}

// ---- the run ----

function artifactIdOf(ctx: JobContext): string {
  const id = ctx.input.artifact_id;
  if (typeof id !== 'string') throw new JobError('invalid_input', 'The drafting run has no artifact_id in its input.');
  return id;
}

async function materialFor(deps: ServiceDeps, workspaceId: string, ids: string[]): Promise<SourceMaterial[]> {
  const [posts, decodes] = await Promise.all([loadPosts(deps.db, workspaceId, ids), loadDecodes(deps.db, ids)]);
  const material: SourceMaterial[] = [];
  // In the artifact's order (the drafted-from post first); a post deleted since is skipped.
  for (const id of ids) {
    const p = posts.find((x) => x.id === id);
    if (!p) continue;
    const d = decodes.find((x) => x.postId === id);
    material.push({
      text: p.text,
      url: p.url,
      platform: p.platform,
      metrics: { likes: p.likes, reposts: p.reposts, replies: p.replies, quotes: p.quotes },
      decode: d
        ? { hook: d.hook, format: d.format, length: d.length, hashtags: JSON.parse(d.hashtags) as string[], links: JSON.parse(d.links) as string[] }
        : null,
    });
  }
  return material;
}

/**
 * The platforms an artifact gets variants for: those the request named; else a re-draft's
 * parent's; else the pipeline's own platform when it is a target (mastodon, bluesky), the format
 * of an archive pipeline's latest import (x, linkedin, mastodon, bluesky; none for wordpress and
 * instagram, which are not publishing targets), and none for a feed (its text
 * is the artifact's; name targets to get variants).
 */
export async function targetsFor(deps: ServiceDeps, a: ArtifactRow, pipeline: PipelineRow, requested: unknown): Promise<TargetPlatform[]> {
  if (Array.isArray(requested)) return requested.filter((p): p is TargetPlatform => typeof p === 'string' && isTargetPlatform(p));
  if (a.parentArtifactId) {
    const inherited = await listVariants(deps, { id: a.parentArtifactId, workspaceId: a.workspaceId });
    if (inherited.length) return inherited.map((v) => v.platform).filter(isTargetPlatform);
  }
  if (isTargetPlatform(pipeline.platform)) return [pipeline.platform];
  if (pipeline.platform === 'archive') {
    const format = (await latestImport(deps.db, a.workspaceId, pipeline.handle))?.format;
    if (format && isTargetPlatform(format)) return [format];
  }
  return [];
}

async function draftInput(ctx: JobContext, a: ArtifactRow, pipeline: PipelineRow): Promise<DraftInput> {
  const { deps } = ctx;
  const [source, ...more] = await materialFor(deps, a.workspaceId, sourcesOf(a));
  if (!source) throw new JobError('not_found', 'The source post of this artifact no longer exists.');
  const parent = a.parentArtifactId ? await loadArtifact(deps.db, a.workspaceId, a.parentArtifactId) : null;
  const style = ctx.input.style_reference;
  return {
    source,
    more,
    intent: pipeline.intent,
    tone: pipeline.tone,
    styleReference: typeof style === 'string' ? style : null,
    platform: pipeline.platform,
    parentText: parent?.text || null,
    variation: a.generation,
  };
}

/** The events of a written artifact: `*.ready` always, `*.refined` for a re-draft. */
async function recordWritten(tx: DraftTx, deps: ServiceDeps, a: ArtifactRow): Promise<void> {
  const brief = sourcesOf(a).length > 1;
  await recordAudit(tx, deps, {
    workspaceId: a.workspaceId,
    actor: SYSTEM,
    action: 'artifact.drafted',
    subject: { type: 'artifact', id: a.id },
    summary: `Wrote the ${brief ? 'brief' : 'draft'}`,
    detail: { pipeline_id: a.pipelineId, parent_artifact_id: a.parentArtifactId, state: a.state },
  });
  if (brief) {
    await recordEvent(tx, deps, a.workspaceId, 'brief.ready', { brief_id: a.id, artifact_id: a.id });
    if (a.parentArtifactId) await recordEvent(tx, deps, a.workspaceId, 'brief.refined', { brief_id: a.id, artifact_id: a.id, parent_id: a.parentArtifactId });
    return;
  }
  await recordEvent(tx, deps, a.workspaceId, 'riff.ready', { riff_id: a.id, artifact_id: a.id, source_post_id: a.sourcePostId, pipeline_id: a.pipelineId });
  if (a.parentArtifactId) await recordEvent(tx, deps, a.workspaceId, 'riff.refined', { riff_id: a.id, artifact_id: a.id, parent_id: a.parentArtifactId });
}

/** The `draft` and `regenerate_variant` job: write the reserved artifact. */
export const draftJob: JobHandler = async (ctx) => {
  const { deps, run } = ctx;
  const artifactId = artifactIdOf(ctx);
  // The run's reads go through the coalescing loaders: the runs of one claim share each statement.
  const a = await loadArtifact(deps.db, run.workspaceId, artifactId);
  if (!a) throw new JobError('not_found', `The artifact ${artifactId} no longer exists.`);
  // Discarded while queued, or written by an attempt that died before the run was marked done.
  if (a.state !== 'draft') return { artifact_id: a.id, written: false, state: a.state };
  const pipeline = await loadPipeline(deps.db, a.workspaceId, a.pipelineId);
  if (!pipeline) throw new JobError('not_found', 'The pipeline of this artifact no longer exists.');
  const writer = writerFor(deps.config);
  const { text } = await writer.write(await draftInput(ctx, a, pipeline), { outbound: deps.outbound, signal: ctx.signal });
  const targets = await targetsFor(deps, a, pipeline, ctx.input.targets);
  const now = deps.clock.now();
  // The text, its variants and its events commit together.
  const written = await drafts.writeDraft(deps.db, deps.provider, { id: a.id, text, now }, async (tx, row) => {
    await recordWritten(tx, deps, row);
    await addDraftedVariants(tx, row, targets, now);
  });
  if (!written) return { artifact_id: a.id, written: false, state: 'discarded' };
  deps.events.wake();
  return { artifact_id: a.id, written: true, writer: writer.name, variants: targets };
};

export const draftHooks: JobHooks = {
  /** A run that failed for good leaves no half-made draft behind: its artifact is discarded. */
  async onFailed(tx, ctx) {
    const id = ctx.input.artifact_id;
    if (typeof id === 'string') await drafts.discardUnwritten(tx, { id, now: ctx.deps.clock.now() });
  },
};
