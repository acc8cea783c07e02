// Rows to the contract's shapes. One place, so every operation shows a resource the same way.
import type { components } from '../../generated/api.js';
import type { ArtifactRow } from '../store/artifacts.js';
import { posts } from '../adapters/index.js';
import { isManual, type DestinationRow } from '../store/destinations.js';
import type { PublishedPartRow } from '../store/published-parts.js';
import type { PipelineRow, RunRow } from '../store/pipelines.js';
import type { PostRow } from '../store/posts.js';
import type { VariantRow } from '../store/variants.js';
import { countLength, extrasOfPart, fitsOnePost, isTargetPlatform, PLATFORM_RULES } from './platform-text.js';
import { mediaIssues, mediaOf } from './media-items.js';
import { instantText, isInstantText } from '../lib/instants.js';

type S = components['schemas'];
const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * A post's date as answered: its `publishedAt`, or — when the database holds one outside the
 * years 0001–9999 (stored before dates were checked where they are read; the startup migration
 * repairs such rows) — its first ingest's time, with the stored date in `unread_date`, exactly as
 * for a date that could not be read. Never a value the contract's `date-time` refuses.
 */
export function postDate(p: Pick<PostRow, 'publishedAt' | 'createdAt' | 'unreadDate'>): { at: string; unreadDate: string | null } {
  const at = instantText(p.publishedAt);
  if (at !== null) return { at, unreadDate: p.unreadDate };
  const stored = Number.isNaN(p.publishedAt.getTime()) ? '' : p.publishedAt.toISOString();
  return { at: instantText(p.createdAt) ?? new Date(0).toISOString(), unreadDate: p.unreadDate ?? stored };
}

/** The artifact a run works on (a draft's, a regeneration's or a publish's run input names it), or null. */
export function artifactOfRun(run: Pick<RunRow, 'input'>): string | null {
  try {
    const id = (JSON.parse(run.input) as { artifact_id?: unknown }).artifact_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

export function runView(r: RunRow): S['Run'] {
  // A queued run keeps the error of its last transient failure until the next attempt starts (jobs/worker.ts).
  const retrying = r.status === 'queued' && r.errorCode !== null;
  // The upstream's HTTP status, when the error came from its answer (a 503 feed, a 404 page).
  const failure = {
    code: r.errorCode ?? 'failed',
    message: r.errorMessage ?? 'The run failed.',
    ...(r.errorUpstreamStatus !== null ? { upstream_status: r.errorUpstreamStatus } : {}),
  };
  const lastError = retrying || r.status === 'failed' ? failure : null;
  return {
    run_id: r.id,
    pipeline_id: r.pipelineId,
    artifact_id: artifactOfRun(r),
    kind: r.kind as S['Run']['kind'],
    status: r.status as S['Run']['status'],
    attempts: r.attempts,
    created_at: iso(r.createdAt),
    started_at: isoOrNull(r.startedAt),
    finished_at: isoOrNull(r.finishedAt),
    progress: r.progressTotal === null ? null : { done: Math.min(r.progressDone ?? 0, r.progressTotal), total: r.progressTotal },
    error: r.status === 'failed' ? failure : null,
    retrying,
    next_attempt_at: retrying ? iso(r.runAfter) : null,
    last_error: lastError,
  };
}

export function pipelineView(p: PipelineRow, counts: { posts: number; artifacts: number }, last: RunRow | null): S['Pipeline'] {
  return {
    id: p.id,
    handle: p.handle,
    intent: p.intent,
    tone: p.tone,
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
    post_count: counts.posts,
    artifact_count: counts.artifacts,
    last_run: last ? runView(last) : null,
    destinations: pipelineDestinations(p),
  };
}

/** A stored poll as answered: a closing time outside the years 0001–9999 (stored before dates were checked) is unknown (null). */
const pollView = (poll: S['SourcePoll']): S['SourcePoll'] => (poll.closes_at === null || isInstantText(poll.closes_at) ? poll : { ...poll, closes_at: null });

export function postView(p: PostRow): S['SourcePost'] {
  const date = postDate(p);
  return {
    id: p.id,
    pipeline_id: p.pipelineId,
    platform: p.platform as S['Platform'],
    url: p.url,
    text: p.text,
    published_at: date.at,
    unread_date: date.unreadDate,
    metrics: { likes: p.likes, reposts: p.reposts, replies: p.replies, quotes: p.quotes },
    visibility: p.visibility as S['Visibility'],
    media: JSON.parse(p.media) as S['MediaRef'][],
    reply_to: p.replyTo,
    content_warning: p.contentWarning,
    poll: p.poll === null ? null : pollView(JSON.parse(p.poll) as S['SourcePoll']),
    first_version_url: p.firstVersionUrl,
    has_artifact: p.artifactCount > 0,
    created_at: iso(p.createdAt),
  };
}

/** Every post an artifact draws on, its own source first (rows written before briefs hold `[]`). */
export function sourcesOf(a: Pick<ArtifactRow, 'sourcePostId' | 'sourcePostIds'>): string[] {
  const listed = JSON.parse(a.sourcePostIds) as string[];
  return listed.length ? listed : [a.sourcePostId];
}

/**
 * A platform variant: its text, its parts with their counted lengths, and the platform's rules.
 * `contentWarning` is the artifact's: counted with the whole text and with the first part, the
 * one that carries it (Mastodon's `spoiler_text`, Bluesky's `CW:` line).
 */
export function variantView(v: VariantRow, contentWarning: string | null): S['PlatformVariant'] {
  if (!isTargetPlatform(v.platform)) throw new Error(`variant of an unknown platform ${v.platform}`);
  const platform = v.platform;
  const rules = PLATFORM_RULES[platform];
  const parts = JSON.parse(v.parts) as string[];
  return {
    platform,
    text: v.text,
    length: countLength(platform, v.text, extrasOfPart(0, contentWarning)),
    limit: rules.limit,
    counting: rules.counting,
    fits_one_post: fitsOnePost(platform, v.text, extrasOfPart(0, contentWarning)),
    parts: parts.map((text, i) => ({ text, length: countLength(platform, text, extrasOfPart(i, contentWarning)) })),
    is_thread: parts.length > 1,
    numbered: Boolean(v.numbered),
    origin: v.origin as S['PlatformVariant']['origin'],
    problem: v.problem,
    publishable: rules.publishable,
    updated_at: iso(v.updatedAt),
  };
}

/** `parts`: the artifact's rows in PublishedPart (none for an artifact never published). */
export function artifactView(a: ArtifactRow, variants: VariantRow[], parts: PublishedPartRow[] = [], destinations: DestinationRow[] = []): S['Artifact'] {
  const sources = sourcesOf(a);
  // `published_parts`: the first destination's (by its order), as the seed showed the one platform's parts.
  const first = destinations.find((d) => !isManual(d));
  const firstParts = first ? parts.filter((p) => p.destination === first.destination) : [];
  return {
    id: a.id,
    pipeline_id: a.pipelineId,
    kind: sources.length > 1 ? 'brief' : 'riff',
    text: a.text,
    state: a.state as S['ArtifactState'],
    source_visibility: a.sourceVisibility as S['Visibility'],
    content_warning: a.contentWarning,
    genealogy: {
      source_post_id: a.sourcePostId,
      source_post_ids: sources,
      parent_artifact_id: a.parentArtifactId,
      root_artifact_id: a.rootArtifactId,
      generation: a.generation,
      ancestors: JSON.parse(a.ancestors) as string[],
    },
    created_at: iso(a.createdAt),
    updated_at: iso(a.updatedAt),
    published_at: isoOrNull(a.publishedAt),
    published_url: a.publishedUrl,
    schedule: a.state === 'scheduled' && a.scheduledAt ? { at: iso(a.scheduledAt), local_time: a.scheduledLocal, time_zone: a.scheduledZone } : null,
    publish_run_id: a.publishRunId,
    approved_at: isoOrNull(a.approvedAt),
    approved_by: a.approvedBy,
    publish_error: a.state === 'publish_failed' && a.publishErrorCode ? { code: a.publishErrorCode, message: a.publishErrorMessage ?? '' } : null,
    published_parts: firstParts.map((p) => ({ position: p.position + 1, external_id: p.externalId, url: p.url, posted_at: iso(p.postedAt) })),
    destinations: destinations.map((d) => destinationView(d, parts)),
    variants: variants.map((v) => variantView(v, a.contentWarning)),
    media: mediaOf(a),
    media_issues: mediaIssues(mediaOf(a)),
  };
}

/** A pipeline's default destinations as stored: what `GET /pipelines/{id}` shows. */
export function pipelineDestinations(p: Pick<PipelineRow, 'destinations' | 'platform' | 'handle'>): S['PipelineDestination'][] {
  if (p.destinations !== null) return JSON.parse(p.destinations) as S['PipelineDestination'][];
  return posts(p.platform) ? [{ account_id: null, platform: p.platform as S['PipelineDestination']['platform'], handle: p.handle }] : [];
}

/** One destination as the contract shows it, with its parts. */
export function destinationView(d: DestinationRow, parts: PublishedPartRow[]): S['ArtifactDestination'] {
  const error = d.errorCode ? { code: d.errorCode, message: d.errorMessage ?? '' } : null;
  return {
    destination: d.destination,
    account_id: d.accountId,
    platform: d.platform as S['TargetPlatform'],
    handle: d.handle,
    manual: isManual(d),
    state: d.state as S['ArtifactDestination']['state'],
    url: d.url,
    published_at: d.publishedAt ? d.publishedAt.toISOString() : null,
    error: d.state === 'live' ? null : error,
    next_attempt_at: d.state === 'publishing' && d.nextAttemptAt ? d.nextAttemptAt.toISOString() : null,
    parts: parts
      .filter((p) => p.destination === d.destination)
      .map((p) => ({ position: p.position + 1, external_id: p.externalId, url: p.url, posted_at: p.postedAt.toISOString() })),
  };
}
