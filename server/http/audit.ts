// The record of who did what, for the API's own operations: one table from operationId to the
// record a successful call makes (its action, subject, summary), read by the router for every
// mutating operation (http/router.ts). The record is written in the transaction of the change when
// the service takes a commit hook (commitHook in http/typed.ts: publish, mark-published, drafting,
// pipelines, session items), and otherwise right after the handler answered, before the answer is
// sent. A replayed answer (idempotency) records nothing: the change was recorded the first time.
// test/unit/audit-actions.test.ts fails when a mutating operation of the description is in neither
// AUDITED nor NOT_AUDITED, so that a new operation cannot be forgotten.
import type { Logger } from 'pino';
import type { Db } from '../store/database.js';
import { auditActor, recordAudit, type Actor } from '../services/audit.js';
import type { Caller, ServiceDeps } from '../services/context.js';
import type { AuditScope, HandlerRequest, OpId, Reply } from './typed.js';

type Answer<K extends OpId> = Extract<Reply<K>, { status: 200 | 201 | 202 | 204 }>['body'];

/** What a rule sees of a successful call. */
export interface Seen<K extends OpId> {
  path: HandlerRequest<K>['path'];
  body: HandlerRequest<K>['body'];
  answer: Answer<K>;
  status: number;
}

export interface AuditRule<K extends OpId> {
  action: string | ((s: Seen<K>) => string);
  subject: (s: Seen<K>) => { type: string; id: string } | null;
  summary: (s: Seen<K>) => string;
  detail?: (s: Seen<K>) => Record<string, unknown> | null;
  /**
   * For an operation that changes several things at once (the bulk ones): the record of each, so
   * that each artifact's history shows it; `subject` and `summary` are then each item's.
   */
  each?: (s: Seen<K>) => Array<{ subject: { type: string; id: string }; summary: string; detail?: Record<string, unknown> }>;
}

type Rules = { [K in OpId]?: AuditRule<K> };

const artifact = (id: string) => ({ type: 'artifact', id });

/** What the publish request asked for, without anything secret (there is none in it). */
const destinationsOf = (a: { destinations?: Array<string | { platform: string; handle?: string | null }> }) =>
  (a.destinations ?? []).map((d) => (typeof d === 'string' ? d : `${d.platform}${d.handle ? ` ${d.handle}` : ''}`));

/** Every mutating operation of the API that changes the workspace, and the record it makes. */
export const AUDITED: Rules = {
  createPipelineFromIntent: {
    action: (s) => (s.answer.resumed ? 'pipeline.resumed' : 'pipeline.created'),
    subject: (s) => ({ type: 'pipeline', id: s.answer.pipeline_id }),
    summary: (s) => `${s.answer.resumed ? 'Resumed' : 'Created'} the pipeline of ${s.body.handle}`,
    detail: (s) => ({ handle: s.body.handle, run_id: s.answer.run_id }),
  },
  setPipelineDestinations: {
    action: 'pipeline.destinations_set',
    subject: (s) => ({ type: 'pipeline', id: s.path.id }),
    summary: (s) => `Set the pipeline's default destinations (${s.answer.destinations.length})`,
  },
  draftFromPost: {
    action: 'artifact.draft_requested',
    subject: (s) => artifact(s.answer.artifact_id),
    summary: (s) => `Asked for a draft from the post ${s.path.id}`,
    detail: (s) => ({ post_id: s.path.id, run_id: s.answer.run_id, parent_artifact_id: s.body.parent_artifact_id ?? null }),
  },
  publishArtifact: {
    action: (s) => (s.answer.artifact.state === 'scheduled' ? 'artifact.scheduled' : 'artifact.publish_requested'),
    subject: (s) => artifact(s.path.id),
    summary: (s) =>
      s.answer.artifact.state === 'scheduled'
        ? `Scheduled the artifact for ${s.answer.artifact.schedule?.at ?? 'later'}`
        : 'Asked for the artifact to be published now',
    detail: (s) => ({ run_id: s.answer.run.run_id, scheduled_at: s.answer.artifact.schedule?.at ?? null, destinations: destinationsOf(s.answer.artifact) }),
  },
  markArtifactPublished: {
    action: 'artifact.marked_published',
    subject: (s) => artifact(s.path.id),
    summary: (s) => `Recorded a post made by hand on ${s.body.platform}`,
    detail: (s) => ({ platform: s.body.platform, url: s.body.url }),
  },
  unscheduleArtifact: {
    action: 'artifact.unscheduled',
    subject: (s) => artifact(s.path.id),
    summary: () => 'Unscheduled the artifact (back to ready)',
  },
  setArtifactMedia: {
    action: 'artifact.edited',
    subject: (s) => artifact(s.path.id),
    summary: (s) => `Set the artifact's media (${s.answer.media?.length ?? 0})`,
    detail: (s) => ({ edited: 'media', media: s.answer.media?.length ?? 0 }),
  },
  transitionArtifact: {
    action: (s) => ({ ready: 'artifact.approved', review: 'artifact.reopened', discarded: 'artifact.discarded' })[s.body.to],
    subject: (s) => artifact(s.path.id),
    summary: (s) => ({ ready: 'Approved the artifact', review: 'Sent the artifact back to review', discarded: 'Discarded the artifact' })[s.body.to],
    detail: (s) => ({ to: s.body.to }),
  },
  bulkTransitionArtifacts: {
    action: (s) => ({ ready: 'artifact.approved', review: 'artifact.reopened', discarded: 'artifact.discarded' })[s.body.to],
    subject: () => null,
    summary: (s) => `Moved ${s.answer.succeeded} artifacts to ${s.body.to} at once`,
    each: (s) =>
      s.answer.data
        .filter((o) => o.refusal === null)
        .map((o) => ({
          subject: artifact(o.artifact_id),
          summary: `${({ ready: 'Approved', review: 'Sent back to review', discarded: 'Discarded' } as const)[s.body.to]} the artifact (with ${s.body.artifact_ids.length - 1} others at once)`,
          detail: { to: s.body.to, bulk: true },
        })),
  },
  bulkScheduleArtifacts: {
    action: 'artifact.scheduled',
    subject: () => null,
    summary: (s) => `Scheduled ${s.answer.succeeded} artifacts at once`,
    each: (s) =>
      s.answer.data
        .filter((o) => o.refusal === null)
        .map((o) => ({
          subject: artifact(o.artifact_id),
          summary: `Scheduled the artifact for ${o.scheduled_at} (one of ${s.body.artifact_ids.length}, every ${s.body.every_minutes} minutes)`,
          detail: { at: o.scheduled_at, bulk: true, destinations: destinationsOf(s.body) },
        })),
  },
  putArtifactVariant: {
    action: 'artifact.edited',
    subject: (s) => artifact(s.path.id),
    summary: (s) => `${s.status === 201 ? 'Wrote' : 'Edited'} the artifact's ${s.path.platform} variant`,
    detail: (s) => ({ edited: 'variant', platform: s.path.platform, parts: s.answer.parts.length }),
  },
  connectAccount: {
    action: 'account.connected',
    subject: (s) => ({ type: 'account', id: s.answer.account.id }),
    summary: (s) => `${s.answer.result === 'rotated' ? 'Replaced the credentials of' : 'Connected'} ${s.answer.account.platform} ${s.answer.account.handle}`,
    detail: (s) => ({ platform: s.answer.account.platform, handle: s.answer.account.handle, result: s.answer.result, has_proxy: s.answer.account.has_proxy }),
  },
  startAccountAuthorization: {
    action: 'account.sign_in_started',
    subject: (s) => ({ type: 'authorization', id: s.answer.id }),
    summary: (s) => `Started signing in to ${s.answer.platform}${s.body.handle ? ` as ${s.body.handle}` : ''}`,
    detail: (s) => ({ platform: s.answer.platform }),
  },
  checkAccount: {
    action: 'account.checked',
    subject: (s) => ({ type: 'account', id: s.path.id }),
    summary: (s) => `Checked ${s.answer.platform} ${s.answer.handle}: ${s.answer.status}`,
    detail: (s) => ({ status: s.answer.status }),
  },
  createToken: {
    action: 'token.created',
    subject: (s) => ({ type: 'token', id: s.answer.token.id }),
    summary: (s) => `Created the token ${JSON.stringify(s.answer.token.name)} (${s.answer.token.scopes.join(', ')})`,
    detail: (s) => ({ name: s.answer.token.name, scopes: s.answer.token.scopes, expires_at: s.answer.token.expires_at }),
  },
  revokeToken: {
    action: 'token.revoked',
    subject: (s) => ({ type: 'token', id: s.path.id }),
    summary: (s) => `Revoked the token ${s.answer.name === null ? s.answer.id : JSON.stringify(s.answer.name)}`,
  },
  rotateToken: {
    action: 'token.rotated',
    subject: (s) => ({ type: 'token', id: s.path.id }),
    summary: (s) =>
      `Rotated the token ${s.answer.previous.name === null ? s.answer.previous.id : JSON.stringify(s.answer.previous.name)}: ${s.answer.token.id} replaces it, the old one working until ${s.answer.previous.expires_at}`,
    detail: (s) => ({ new_token_id: s.answer.token.id, previous_expires_at: s.answer.previous.expires_at }),
  },
  updateWorkspace: {
    action: 'workspace.updated',
    subject: (s) => ({ type: 'workspace', id: s.answer.id }),
    summary: (s) => `Turned the approval gate ${s.answer.approval_required ? 'on' : 'off'}`,
    detail: (s) => ({ approval_required: s.answer.approval_required }),
  },
  createImport: {
    action: 'import.created',
    subject: (s) => ({ type: 'import', id: s.answer.id }),
    summary: (s) => `Uploaded a ${s.answer.format} export of ${s.answer.handle} (${s.answer.size_bytes} bytes)`,
  },
  uploadMedia: {
    action: 'media.uploaded',
    subject: (s) => ({ type: 'media', id: s.answer.id }),
    summary: (s) => `Uploaded ${s.answer.type === 'gif' ? 'a GIF' : 'an image'} (${s.answer.content_type}, ${s.answer.size_bytes} bytes)`,
  },
  putFetchSchema: {
    action: 'fetch_schema.saved',
    subject: (s) => ({ type: 'fetch_schema', id: s.path.id }),
    summary: (s) => `${s.status === 201 ? 'Created' : 'Replaced'} the extraction schema ${s.path.id}`,
  },
  deleteFetchSchema: {
    action: 'fetch_schema.deleted',
    subject: (s) => ({ type: 'fetch_schema', id: s.path.id }),
    summary: (s) => `Deleted the extraction schema ${s.path.id}`,
  },
  addSessionItem: {
    action: 'session.item_added',
    subject: (s) => ({ type: 'session', id: s.path.sessionId }),
    summary: (s) => `Added a ${s.answer.kind} to the session`,
    detail: (s) => ({ item_id: s.answer.id, artifact_id: s.answer.artifact_id, source_id: s.answer.source_id }),
  },
  regenerateVariant: {
    action: 'session.variant_regenerate_requested',
    subject: (s) => (s.answer.artifact_id ? artifact(s.answer.artifact_id) : { type: 'session', id: s.path.sessionId }),
    summary: (s) => `Asked for round ${s.answer.round} of a session variant`,
    detail: (s) => ({ session_id: s.path.sessionId, variant_id: s.path.variantId, run_id: s.answer.run_id }),
  },
  refreshSource: {
    action: 'source.refresh_requested',
    subject: (s) => ({ type: 'source', id: s.path.id }),
    summary: () => 'Asked for the source to be fetched again',
    detail: (s) => ({ run_id: s.answer.run_id }),
  },
  createDeskSignInLink: {
    action: 'desk.sign_in_link_created',
    subject: () => null,
    summary: (s) => `Made a desk sign-in link (valid until ${s.answer.expires_at})`,
  },
};

/** The mutating operations that record nothing here, each with why. */
export const NOT_AUDITED: Partial<Record<OpId, string>> = {
  fetchUrl: 'fetches a public page and answers it: nothing of the workspace changes',
  exchangeDeskSignIn: 'has no caller yet: the session it makes records `desk.signed_in` as the person (services/desk.ts), in the transaction that makes it',
  receiveBackendEvent: 'a signed event of another service, kept in the event outbox (the event is its own record); no workspace caller',
  receiveScraperMonitorEvent: 'a signed event of another service, kept in the event outbox (the event is its own record); no workspace caller',
};

/**
 * The record of one request of an audited operation: the router makes it before the handler runs
 * (the actor is read then), hands `scope` to the handler (commitHook), and calls `after` with a
 * successful answer that was not replayed; `after` writes nothing when the transaction did.
 */
export async function auditFor(
  deps: ServiceDeps,
  operationId: string,
  caller: Caller | undefined,
  req: { path: unknown; body: unknown },
): Promise<{ scope: AuditScope; after(status: number, answer: unknown, log: Logger): Promise<void> } | null> {
  const rule = (AUDITED as Record<string, AuditRule<OpId> | undefined>)[operationId];
  if (!rule || !caller) return null;
  const actor: Actor = await auditActor(deps, caller);
  let written = false;
  const write = async (db: Db, status: number, answer: unknown) => {
    const seen = { path: req.path, body: req.body, answer, status } as Seen<OpId>;
    const action = typeof rule.action === 'string' ? rule.action : rule.action(seen);
    const items = rule.each?.(seen) ?? [{ subject: rule.subject(seen), summary: rule.summary(seen), detail: rule.detail?.(seen) ?? undefined }];
    for (const item of items)
      await recordAudit(db, deps, {
        workspaceId: caller.workspaceId,
        actor,
        action,
        subject: item.subject,
        summary: item.summary,
        detail: item.detail ?? null,
      });
    written = true;
  };
  return {
    scope: { writeIn: (tx, status, answer) => write(tx, status, answer) },
    async after(status, answer, log) {
      if (written) return;
      try {
        await write(deps.db, status, answer);
      } catch (err) {
        // The change is made and committed: its answer goes out. A record that could not be
        // written is an error in the log (docs/security.md, "The record").
        log.error({ err, operationId, workspaceId: caller.workspaceId }, 'the audit record of a change could not be written');
      }
    },
  };
}
