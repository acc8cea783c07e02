// The record of who did what (issue 32; docs/security.md, "The record"). Every change of a
// workspace is one AuditEvent naming its actor: the caller of a mutating operation (recorded by
// the HTTP layer from the operation, server/http/audit.ts), the service itself for what it does on
// its own (`system`: a publish run's outcome, a drafting run's draft, a refused sign-in renewal),
// and the operator on the host (`cpa admin …`). Rows are only inserted, and kept.
import os from 'node:os';
import type { components } from '../../generated/api.js';
import type { Db } from '../store/database.js';
import * as store from '../store/audit.js';
import { tokenById } from '../store/workspaces.js';
import type { Actor as CallerActor, Caller, ServiceDeps } from './context.js';

export type ActorKind = 'agent' | 'person' | 'operator' | 'system';

/** Who did it, as the record keeps it: the name is the one the actor had at the time. */
export interface Actor {
  kind: ActorKind;
  /** The token (or a person's session) that acted; null for the operator and the service. */
  id: string | null;
  name: string;
}

/** The name of a token that has none: the one `npm start` or `cpa admin workspace create` made. */
export const DEFAULT_TOKEN_NAME = 'first-launch token';

/** The service acting on its own (a run, a renewal, the first launch). */
export const SYSTEM: Actor = { kind: 'system', id: null, name: 'service' };

/** The operator on the server host (`cpa admin …`), named after the host's user running the command. */
export function operatorActor(): Actor {
  let user = '';
  try {
    user = os.userInfo().username;
  } catch {
    // no user name on this host (a container without /etc/passwd): "operator" alone
  }
  return { kind: 'operator', id: null, name: user ? `operator (${user})` : 'operator' };
}

/**
 * The actor of a request as the record names it: the caller's actor (a person's session, or an
 * agent's token; DEFAULT_TOKEN_NAME for the token without a name). A caller remade from a stored
 * token id (a sign-in finished in the browser, services/oauth) is looked up.
 */
export async function auditActor(deps: Pick<ServiceDeps, 'db'>, caller: Pick<Caller, 'workspaceId' | 'tokenId' | 'actor'>): Promise<Actor> {
  const known = caller.actor ?? (await storedActor(deps, caller));
  return { kind: known.kind, id: known.id, name: known.name ?? DEFAULT_TOKEN_NAME };
}

async function storedActor(deps: Pick<ServiceDeps, 'db'>, caller: Pick<Caller, 'workspaceId' | 'tokenId'>): Promise<CallerActor> {
  const row = await tokenById(deps.db, caller.workspaceId, caller.tokenId);
  return { kind: row?.kind === 'person' ? 'person' : 'agent', id: caller.tokenId, name: row?.name ?? null };
}

/** What a record says happened. */
export interface AuditEntry {
  workspaceId: string;
  actor: Actor;
  /** A stable dotted name (`artifact.approved`); the list is in the description of listAuditEvents. */
  action: string;
  subject: { type: string; id: string } | null;
  summary: string;
  detail?: Record<string, unknown> | null;
}

const SUMMARY_MAX = 500;
const DETAIL_MAX = 4000;

// Ids that sort in the order this process made them (the time, then a counter within the same
// millisecond), so that records made in the same millisecond list in the order they happened.
let lastMs = 0;
let seq = 0;
function auditId(deps: Pick<ServiceDeps, 'ids'>, at: Date): string {
  const ms = Math.max(at.getTime(), lastMs);
  seq = ms === lastMs ? seq + 1 : 0;
  lastMs = ms;
  const random = deps.ids.id('aud').slice(4, 12);
  return `aud_${ms.toString(16).padStart(12, '0')}${seq.toString(16).padStart(4, '0')}${random}`;
}

/** Writes one record, in the transaction of the change when `db` is one. */
export async function recordAudit(db: Db, deps: Pick<ServiceDeps, 'clock' | 'ids'>, e: AuditEntry): Promise<void> {
  const createdAt = deps.clock.now();
  let detail = e.detail ? JSON.stringify(e.detail) : null;
  if (detail && detail.length > DETAIL_MAX) detail = JSON.stringify({ truncated: true });
  await store.insertAuditEvent(db, {
    id: auditId(deps, createdAt),
    workspaceId: e.workspaceId,
    actorKind: e.actor.kind,
    actorId: e.actor.id,
    actorName: e.actor.name.slice(0, 200),
    action: e.action,
    subjectType: e.subject?.type ?? null,
    subjectId: e.subject?.id ?? null,
    summary: e.summary.length > SUMMARY_MAX ? `${e.summary.slice(0, SUMMARY_MAX - 1)}…` : e.summary,
    detail,
    createdAt,
  });
}

/** A record as the API shows it. */
export function auditView(r: store.AuditRow): components['schemas']['AuditEvent'] {
  return {
    id: r.id,
    created_at: r.createdAt.toISOString(),
    actor: { kind: r.actorKind as ActorKind, id: r.actorId, name: r.actorName },
    action: r.action,
    subject: r.subjectType && r.subjectId ? { type: r.subjectType, id: r.subjectId } : null,
    summary: r.summary,
    detail: r.detail ? (JSON.parse(r.detail) as Record<string, unknown>) : null,
  };
}
