// The inbox: what needs the agent's attention in a pipeline, most urgent first. Anomalies come
// from the same facts as diagnose (a missing or dead credential, a failed ingest, failed drafting
// runs), then drafts in review, then posts without a draft ranked by engagement. Computed on each
// call; item ids are stable for the same underlying row.
import type { components } from '../../generated/api.js';
import { API_PREFIX } from '../errors.js';
import * as health from '../store/health.js';
import type { PostRow } from '../store/posts.js';
import type { Caller, ServiceDeps } from './context.js';
import { accountIssues, ingestIssues, pipelineFacts, publishRemedy, signInIssues, variantEndpoint, type Facts } from './diagnose.js';
import { mediaIssues, mediaOf } from './media-items.js';
import { postDate } from './views.js';

type S = components['schemas'];
type Item = S['InboxItem'];

export const PRIORITY = {
  credential: 95,
  ingest: 90,
  directMessage: 88,
  signInEnding: 86,
  publishFailed: 85,
  draftFailed: 80,
  variantUnpostable: 75,
  scheduled: 70,
  altText: 70,
  review: 60,
  sourceMin: 10,
  sourceMax: 50,
} as const;
const MAX_ITEMS = 100;
/** How many of the newest posts without a draft are ranked. */
const POSTS_RANKED = 500;

const firstLine = (text: string) => {
  const line =
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? '';
  return [...line].length > 120 ? `${[...line].slice(0, 119).join('')}…` : line;
};

const empty = { artifact_id: null, post_id: null, anomaly: null } as const;

function anomalies(f: Facts): Item[] {
  const items: Item[] = [];
  for (const issue of accountIssues(f)) {
    items.push({
      ...empty,
      id: `flagged_anomaly:${issue.code}:${f.account?.id ?? f.pipeline.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.credential,
      // A handle may be 512 characters; a title at most 300.
      title: (issue.code === 'no_account'
        ? `No ${f.pipeline.platform} account for ${f.pipeline.handle}`
        : `The ${f.pipeline.platform} credential of ${f.pipeline.handle} is dead`
      ).slice(0, 300),
      created_at: (f.account?.lastProbedAt ?? f.pipeline.createdAt).toISOString(),
      anomaly: { code: issue.code, message: issue.message },
      suggested_action: issue.suggested_action,
      suggested_endpoint: issue.suggested_endpoint,
    });
  }
  for (const issue of signInIssues(f)) {
    const a = issue.account;
    const reconnect = issue.code === 'reconnect_account';
    items.push({
      ...empty,
      id: `flagged_anomaly:${issue.code}:${a.id}`,
      kind: 'flagged_anomaly',
      priority: reconnect || issue.severity === 'error' ? PRIORITY.credential : PRIORITY.signInEnding,
      title: (reconnect
        ? `Sign in to ${a.platform} again as ${a.handle}`
        : `The ${a.platform} sign-in of ${a.handle} ends ${a.reconnectBy?.toISOString().slice(0, 10) ?? ''}: sign in again`
      ).slice(0, 300),
      created_at: (reconnect ? a.lastProbedAt : (a.reconnectBy ?? a.updatedAt)).toISOString(),
      anomaly: { code: issue.code, message: issue.message },
      suggested_action: issue.suggested_action,
      suggested_endpoint: issue.suggested_endpoint,
    });
  }
  const failedIngest = ingestIssues(f).find((i) => i.code === 'ingest_failed');
  const last = f.ingest.last;
  if (failedIngest && last) {
    items.push({
      ...empty,
      id: `flagged_anomaly:ingest_failed:${last.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.ingest,
      title: 'The latest ingest failed',
      created_at: (last.finishedAt ?? last.createdAt).toISOString(),
      anomaly: { code: 'ingest_failed', message: `${last.errorCode ?? 'failed'}: ${last.errorMessage ?? ''}`.slice(0, 2000) },
      suggested_action: 'diagnose_pipeline',
      suggested_endpoint: `GET ${API_PREFIX}/pipelines/${f.pipeline.id}/diagnose`,
    });
  }
  for (const { run, artifact } of f.failedDrafts) {
    const postId = artifact?.sourcePostId ?? null;
    items.push({
      id: `flagged_anomaly:draft_failed:${run.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.draftFailed,
      title: 'A drafting run failed',
      created_at: (run.finishedAt ?? run.createdAt).toISOString(),
      artifact_id: artifact?.id ?? null,
      post_id: postId,
      anomaly: { code: 'draft_failed', message: `${run.errorCode ?? 'failed'}: ${run.errorMessage ?? ''}`.slice(0, 2000) },
      suggested_action: postId ? 'draft_post' : 'diagnose_pipeline',
      suggested_endpoint: postId ? `POST ${API_PREFIX}/posts/${postId}/draft` : `GET ${API_PREFIX}/pipelines/${f.pipeline.id}/diagnose`,
    });
  }
  for (const a of f.publishFailed) {
    items.push({
      id: `flagged_anomaly:publish_failed:${a.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.publishFailed,
      title: `Publishing failed: ${firstLine(a.text) || a.id}`,
      created_at: a.updatedAt.toISOString(),
      artifact_id: a.id,
      post_id: a.sourcePostId,
      anomaly: { code: 'publish_failed', message: `${a.publishErrorCode ?? 'failed'}: ${a.publishErrorMessage ?? ''}`.slice(0, 2000) },
      ...publishRemedy(a),
    });
  }
  for (const { variant: v, reason } of f.unpostable) {
    items.push({
      id: `flagged_anomaly:variant_unpostable:${v.artifactId}:${v.platform}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.variantUnpostable,
      title: `Fix the ${v.platform} variant of: ${firstLine(v.artifactText) || v.artifactId}`.slice(0, 300),
      created_at: v.updatedAt.toISOString(),
      artifact_id: v.artifactId,
      post_id: v.sourcePostId,
      anomaly: {
        code: 'variant_unpostable',
        message: `The ${v.platform} variant cannot be posted: ${reason}. Send its text or your own split (parts).`.slice(0, 2000),
      },
      suggested_action: 'put_variant',
      suggested_endpoint: variantEndpoint(v),
    });
  }
  for (const a of f.fromDirect) {
    const published = a.state === 'published';
    items.push({
      id: `flagged_anomaly:direct_message_source:${a.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.directMessage,
      title: `${published ? 'Published' : 'Drafted'} from a direct message: ${firstLine(a.text) || a.id}`.slice(0, 300),
      created_at: a.updatedAt.toISOString(),
      artifact_id: a.id,
      post_id: a.sourcePostId,
      anomaly: {
        code: 'direct_message_source',
        message: published
          ? `The artifact was published (${a.publishedUrl ?? 'no address'}) from a direct message an older version stored as a public post; decide whether to delete it on the platform.`
          : `The artifact draws on a direct message that ingest retired as a source (${a.state}); publishing it needs confirm_non_public.`,
      },
      suggested_action: 'fetch_artifact',
      suggested_endpoint: `GET ${API_PREFIX}/artifacts/${a.id}`,
    });
  }
  for (const a of f.missingAltText) {
    const missing = mediaIssues(mediaOf(a)).length;
    items.push({
      id: `flagged_anomaly:missing_alt_text:${a.id}`,
      kind: 'flagged_anomaly',
      priority: PRIORITY.altText,
      title: `Describe the images of: ${firstLine(a.text) || a.id}`,
      created_at: a.updatedAt.toISOString(),
      artifact_id: a.id,
      post_id: a.sourcePostId,
      anomaly: { code: 'missing_alt_text', message: `${missing} of the artifact's ${mediaOf(a).length} media ${missing === 1 ? 'has' : 'have'} no alt text.` },
      suggested_action: 'set_alt_text',
      suggested_endpoint: `PUT ${API_PREFIX}/artifacts/${a.id}/media`,
    });
  }
  return items;
}

/** Scheduled artifacts due soon: a last look before they go out (`created_at` is the due time). */
function scheduledItems(f: Facts): Item[] {
  return f.dueSoon.map((a) => ({
    ...empty,
    id: `scheduled_publish:${a.id}`,
    kind: 'scheduled_publish' as const,
    priority: PRIORITY.scheduled,
    title: `Publishes at ${a.scheduledAt?.toISOString() ?? '?'}: ${firstLine(a.text) || a.id}`.slice(0, 300),
    created_at: (a.scheduledAt ?? a.updatedAt).toISOString(),
    artifact_id: a.id,
    post_id: a.sourcePostId,
    suggested_action: 'fetch_artifact',
    suggested_endpoint: `GET ${API_PREFIX}/artifacts/${a.id}`,
  }));
}

/** The engagement score that ranks posts: reposts and quotes spread a post further than a like. */
export const engagement = (p: Pick<PostRow, 'likes' | 'reposts' | 'replies' | 'quotes'>) => p.likes + 2 * (p.reposts + p.quotes) + p.replies;

function sourceItems(posts: PostRow[]): Item[] {
  const best = Math.max(0, ...posts.map(engagement));
  const span = PRIORITY.sourceMax - PRIORITY.sourceMin;
  return posts.map((p) => ({
    ...empty,
    id: `source_without_artifact:${p.id}`,
    kind: 'source_without_artifact',
    priority: PRIORITY.sourceMin + (best > 0 ? Math.round((span * engagement(p)) / best) : 0),
    title: `Draft from: ${firstLine(p.text) || p.id}`,
    created_at: postDate(p).at,
    post_id: p.id,
    suggested_action: 'draft_post',
    suggested_endpoint: `POST ${API_PREFIX}/posts/${p.id}/draft`,
  }));
}

export async function pipelineInbox(deps: ServiceDeps, caller: Caller, pipelineId: string): Promise<S['Inbox']> {
  const f = await pipelineFacts(deps, caller, pipelineId);
  const [reviews, posts] = await Promise.all([
    health.artifactsInReview(deps.db, f.pipeline.id, MAX_ITEMS),
    health.postsWithoutArtifact(deps.db, f.pipeline.id, POSTS_RANKED),
  ]);
  const items: Item[] = [
    ...anomalies(f),
    ...scheduledItems(f),
    ...reviews.map((a) => ({
      ...empty,
      id: `draft_in_review:${a.id}`,
      kind: 'draft_in_review' as const,
      priority: PRIORITY.review,
      title: `Review draft: ${firstLine(a.text) || a.id}`,
      created_at: a.updatedAt.toISOString(),
      artifact_id: a.id,
      post_id: a.sourcePostId,
      suggested_action: 'review_artifact',
      suggested_endpoint: `GET ${API_PREFIX}/artifacts/${a.id}`,
    })),
    ...sourceItems(posts),
  ];
  items.sort((a, b) => b.priority - a.priority || b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
  return { pipeline_id: f.pipeline.id, data: items.slice(0, MAX_ITEMS) };
}
