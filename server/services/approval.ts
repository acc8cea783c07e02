// The approval gate (issue 32, docs/security.md "The approval gate"): where the workspace asks
// for it (`Workspace.approvalRequired`, on for workspaces created since the gate exists), an
// artifact is published or scheduled only once a caller holding the `approve` scope approved it
// (`Artifact.approvedAt`/`approvedBy`), and a change to what will be posted by a caller without
// `approve` withdraws the approval (a `ready` artifact goes back to `review`). The rules live
// here; the operations that publish, move or edit an artifact ask them.
import type { components } from '../../generated/api.js';
import { API_PREFIX, approvalRequired, notFound } from '../errors.js';
import type { ArtifactRow } from '../store/artifacts.js';
import { withdrawApproval } from '../store/artifacts.js';
import type { Db } from '../store/database.js';
import * as workspaces from '../store/workspaces.js';
import { DEFAULT_TOKEN_NAME } from './audit.js';
import { actorOf, type Caller, type ServiceDeps } from './context.js';

type S = components['schemas'];

/** Whether the caller may approve (and so publish what is not approved yet). */
export const holdsApprove = (caller: Caller) => caller.scopes.includes('approve');

/**
 * Who approves when `caller` does, as `approved_by` shows it: the person's name for a desk
 * session, the token's name for an agent's, or `first-launch token` for the unnamed token
 * `npm start` or `workspace create` made. The one place that names an approver.
 */
export function approverName(_deps: Pick<ServiceDeps, 'db'>, caller: Caller): Promise<string> {
  return Promise.resolve(actorOf(caller).name ?? DEFAULT_TOKEN_NAME);
}

/** The approval a caller holding `approve` gives, or null for a caller without it. */
export async function approvalBy(deps: Pick<ServiceDeps, 'db' | 'clock'>, caller: Caller): Promise<{ at: Date; by: string } | null> {
  return holdsApprove(caller) ? { at: deps.clock.now(), by: await approverName(deps, caller) } : null;
}

/** Whether the workspace's approval gate is on. */
export const gateOn = (db: Db, workspaceId: string) => workspaces.approvalRequired(db, workspaceId);

/**
 * What a publish (now or at a time) needs from the gate: null when the artifact may go as it is;
 * `approve` when the caller approves it in the same step (it holds `approve` and the artifact has
 * no approval); `required` when it must have been approved (checked again in the compare-and-set).
 * Throws 403 `approval_required` when the gate is on, the artifact has no approval and the caller
 * cannot give it.
 */
export async function publishApproval(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  caller: Caller,
  a: ArtifactRow,
): Promise<{ approve: { at: Date; by: string } | null; requireApproved: boolean }> {
  if (holdsApprove(caller)) return { approve: a.approvedAt ? null : await approvalBy(deps, caller), requireApproved: false };
  if (!(await gateOn(deps.db, caller.workspaceId))) return { approve: null, requireApproved: false };
  // Approved: the publish's compare-and-set checks that no edit withdrew it meanwhile.
  if (a.approvedAt) return { approve: null, requireApproved: true };
  throw approvalRequired(
    `The artifact ${a.id} is ${a.state} and not approved (approved_at is null), and this workspace requires a person's approval before publishing or scheduling (approval_required). Ask a person to approve it in the review desk, or a caller holding the 'approve' scope to move it to ready; it waits in ${a.state}.`,
    { suggestedAction: 'request_approval', suggestedEndpoint: `POST ${API_PREFIX}/artifacts/${a.id}/transition` },
  );
}

/**
 * After a change to what will be posted (in the transaction that made it): a caller without
 * `approve` withdraws the artifact's approval where the gate is on, and a `ready` artifact goes
 * back to `review`. Answers whether it did.
 */
export async function afterEdit(tx: Db, deps: Pick<ServiceDeps, 'clock'>, caller: Caller, artifactId: string): Promise<boolean> {
  if (holdsApprove(caller) || !(await gateOn(tx, caller.workspaceId))) return false;
  await withdrawApproval(tx, { id: artifactId, workspaceId: caller.workspaceId, now: deps.clock.now() });
  return true;
}

/** The workspace as GET /workspace shows it. */
export function workspaceView(w: workspaces.WorkspaceRow): S['Workspace'] {
  return { id: w.id, name: w.name, approval_required: Boolean(w.approvalRequired), created_at: w.createdAt.toISOString() };
}

/** GET /workspace: the caller's workspace and its settings. */
export async function getWorkspace(deps: Pick<ServiceDeps, 'db'>, caller: Caller): Promise<S['Workspace']> {
  const w = await workspaces.findWorkspace(deps.db, caller.workspaceId);
  if (!w) throw notFound('workspace');
  return workspaceView(w);
}

/** PATCH /workspace: turns the approval gate on or off. */
export async function updateWorkspace(deps: Pick<ServiceDeps, 'db'>, caller: Caller, body: S['UpdateWorkspaceRequest']): Promise<S['Workspace']> {
  const w = await workspaces.setApprovalRequired(deps.db, caller.workspaceId, body.approval_required);
  if (!w) throw notFound('workspace');
  return workspaceView(w);
}
