// Issue 32, the approval gate: where the workspace requires approval (on for a workspace created
// now), an artifact is published or scheduled only once a caller holding `approve` approved it,
// and a change to it by a caller without `approve` sends it back to review. The journey: an agent
// with `draft` drafts but cannot approve, publish, schedule or connect; with `draft`+`publish` it
// is refused (403 approval_required) until a person (the first-launch token, as the desk uses it)
// or an `approve` token approves; then its `publish` token publishes; an edit after approval sends
// the artifact back. Gate off: publishing is as before. Workspaces that existed keep the gate off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, type Schemas } from '../../clients/typescript/src/index.js';
import { seedArtifact } from '../support/seed.js';
import { callWith, getArtifact, moveArtifact, publishingWorld, V1 } from '../support/api.js';
import { waitForRun } from '../support/runs.js';
import { beforeMigration, type BeforeMigration } from '../support/migration.js';
import { testDbKind } from '../support/database.js';
import { createWorkspace } from '../../server/services/tokens.js';
import { findWorkspace } from '../../server/store/workspaces.js';

let w: Awaited<ReturnType<typeof publishingWorld>>;
let migrated: BeforeMigration | null = null;
beforeAll(async () => {
  w = await publishingWorld();
});
afterAll(async () => {
  await w?.stop();
  await migrated?.cleanup();
});

type ErrorBody = { error?: { code: string; message: string; suggested_action?: string } };
interface Reply {
  status: number;
  body: Record<string, unknown> & ErrorBody;
}
const reply = (r: { response: Response; data?: unknown; error?: unknown }): Reply => ({
  status: r.response.status,
  body: (r.data ?? r.error) as Reply['body'],
});

const client = (token?: string) => w.s.client(token);
const publish = async (token: string, id: string, body: { at?: string } = {}) =>
  reply(await client(token).POST(`${V1}/artifacts/{id}/publish`, { params: { path: { id } }, body: { idempotency_key: newIdempotencyKey(), ...body } }));
const transition = async (token: string, id: string, to: 'ready' | 'review') =>
  reply(await client(token).POST(`${V1}/artifacts/{id}/transition`, { params: { path: { id } }, body: { to, idempotency_key: newIdempotencyKey() } }));
const putVariant = async (token: string, id: string, text: string) =>
  reply(await client(token).PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id, platform: 'mastodon' } }, body: { text } }));
const setGate = async (on: boolean, token = w.s.token) => reply(await client(token).PATCH(`${V1}/workspace`, { body: { approval_required: on } }));
const inAnHour = () => new Date(w.s.running.deps.clock.now().getTime() + 3_600_000).toISOString();

/** A named token with these scopes, made by the first-launch token (which holds every scope). */
async function token(name: string, scopes: Schemas['TokenScope'][]) {
  const created = await client().POST(`${V1}/tokens`, { body: { name, scopes } });
  expect(created.response.status).toBe(201);
  return created.data!.secret;
}

/** An artifact in review on the Mastodon pipeline (its default destination: the pipeline's account). */
async function inReview(text = 'Shipped: the importer is 4x faster 🚀') {
  const { id, postId } = w.pipelines.mastodon;
  return (await seedArtifact(w.s.running.deps, { workspaceId: w.workspaceId, pipelineId: id, postId, state: 'review', text })).id;
}

function expectApprovalRequired(r: Reply, state: string) {
  expect(r.status).toBe(403);
  expect(r.body.error?.code).toBe('approval_required');
  expect(r.body.error?.suggested_action).toBe('request_approval');
  expect(r.body.error?.message).toContain(`is ${state}`);
  expect(r.body.error?.message).toContain('approved_at');
}

function expectMissingScope(r: Reply, scope: string) {
  expect(r.status).toBe(403);
  expect(r.body.error?.code).toBe('forbidden');
  expect(r.body.error?.suggested_action).toBe('request_scope');
  expect(r.body.error?.message).toContain(`'${scope}'`);
}

describe('the workspace setting', () => {
  it('is on for a workspace created now; an admin token turns it off and on, a token without admin cannot', async () => {
    const read = await token('reader', ['read']);
    const got = reply(await client(read).GET(`${V1}/workspace`));
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: w.workspaceId, approval_required: true });
    expectMissingScope(await setGate(false, read), 'admin');
    expect((await setGate(false)).body.approval_required).toBe(false);
    expect((await setGate(true)).body.approval_required).toBe(true);
    // createWorkspace (admin workspace create, desktop first launch) makes it on.
    const { workspaceId } = await createWorkspace(w.s.running.deps, 'Another workspace');
    expect((await findWorkspace(w.s.running.deps.db, workspaceId))?.approvalRequired).toBeTruthy();
  });
});

describe('with the gate on', () => {
  it('a draft token drafts, but approving, publishing, scheduling and connecting are 403 naming the scope', async () => {
    const drafter = await token('drafting agent', ['read', 'draft']);
    const id = await inReview();
    expect((await putVariant(drafter, id, 'A new text from the drafting agent')).status).toBe(201);
    expectMissingScope(await transition(drafter, id, 'ready'), 'approve');
    expectMissingScope(await publish(drafter, id), 'publish');
    expectMissingScope(await publish(drafter, id, { at: inAnHour() }), 'publish');
    expectMissingScope(
      reply(
        await client(drafter).POST(`${V1}/accounts/connect`, {
          body: { platform: 'bluesky', handle: 'ada.example', auth_material: 'x', idempotency_key: newIdempotencyKey() },
        }),
      ),
      'accounts',
    );
    expect((await getArtifact(w.s, id)).state).toBe('review');
  });

  it('a draft+publish token is refused (approval_required) until an approver approves; then it publishes', async () => {
    const agent = await token('publishing agent', ['read', 'draft', 'publish']);
    const approver = await token('Ada (approver)', ['read', 'approve']);
    const id = await inReview();
    expectApprovalRequired(await publish(agent, id), 'review');
    expectApprovalRequired(await publish(agent, id, { at: inAnHour() }), 'review');
    // Nothing changed: it waits in review, in the desk's queue (the inbox).
    const waiting = await getArtifact(w.s, id);
    expect(waiting).toMatchObject({ state: 'review', approved_at: null, approved_by: null, publish_run_id: null });
    const inbox = await client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: w.pipelines.mastodon.id } } });
    expect(JSON.stringify(inbox.data)).toContain(id);

    const approved = await transition(approver, id, 'ready');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ state: 'ready', approved_by: 'Ada (approver)' });
    expect(approved.body.approved_at).toEqual(expect.any(String));

    const accepted = await publish(agent, id);
    expect(accepted.status).toBe(202);
    const run = await waitForRun(w.s.running.deps, (accepted.body.run as { run_id: string }).run_id);
    expect(run.status).toBe('succeeded');
    expect(await getArtifact(w.s, id)).toMatchObject({ state: 'published', approved_by: 'Ada (approver)' });
  });

  it('a person signed in to the desk approves, and approved_by names the person, not a token', async () => {
    const link = await callWith(w.s, 'POST', '/api/desk/sign-in-links', w.s.token, { name: 'Grace Hopper' });
    expect(link.status).toBe(201);
    const exchanged = await callWith(w.s, 'POST', '/api/desk/sign-in', null, { code: link.body.code });
    expect(exchanged.status).toBe(200);
    const session = exchanged.body.token as string;
    const id = await inReview('Approved by a person in the desk');
    const approved = await transition(session, id, 'ready');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ state: 'ready', approved_by: 'Grace Hopper' });
  });

  it('the first-launch token (every scope, as the desk signs in) publishes a review artifact and approves it in the same step', async () => {
    const id = await inReview('Published by the person, approved on the way');
    const accepted = await publish(w.s.token, id, { at: inAnHour() });
    expect(accepted.status).toBe(202);
    expect(accepted.body.artifact).toMatchObject({ state: 'scheduled', approved_by: 'first-launch token' });
  });

  it('a change by a token without approve sends an approved artifact back to review; by an approver it keeps the approval', async () => {
    const drafter = await token('editing agent', ['read', 'draft']);
    const agent = await token('publisher', ['read', 'publish']);
    const id = await inReview();
    await moveArtifact(w.s, id, 'ready');
    // The person edits: still approved.
    expect((await putVariant(w.s.token, id, 'Edited by the person')).status).toBe(201);
    expect(await getArtifact(w.s, id)).toMatchObject({ state: 'ready', approved_by: 'first-launch token' });
    // The same text again from the agent changes nothing, so the approval stands.
    expect((await putVariant(drafter, id, 'Edited by the person')).status).toBe(200);
    expect(await getArtifact(w.s, id)).toMatchObject({ state: 'ready', approved_by: 'first-launch token' });
    // The media list as it is (none), sent again: no change either.
    expect((await client(drafter).PUT(`${V1}/artifacts/{id}/media`, { params: { path: { id } }, body: { media: [] } })).response.status).toBe(200);
    expect((await getArtifact(w.s, id)).state).toBe('ready');
    // The agent changes the text: back to review, approval withdrawn, and the publish token is refused again.
    expect((await putVariant(drafter, id, 'Changed by the agent after approval')).status).toBe(200);
    expect(await getArtifact(w.s, id)).toMatchObject({ state: 'review', approved_at: null, approved_by: null });
    expectApprovalRequired(await publish(agent, id), 'review');
  });

  it('a scheduled artifact cannot be changed (409, unschedule first), so its approval holds; unscheduled, it is still approved', async () => {
    const drafter = await token('late editor', ['read', 'draft']);
    const agent = await token('scheduler', ['read', 'publish']);
    const id = await inReview();
    await moveArtifact(w.s, id, 'ready');
    expect((await publish(agent, id, { at: inAnHour() })).status).toBe(202);
    const refused = await putVariant(drafter, id, 'Too late to change');
    expect(refused.status).toBe(409);
    expect(refused.body.error?.suggested_action).toBe('unschedule_artifact');
    const unscheduled = reply(await client(agent).DELETE(`${V1}/artifacts/{id}/schedule`, { params: { path: { id } } }));
    expect(unscheduled.body).toMatchObject({ state: 'ready', approved_by: 'first-launch token' });
    // Reopened (ready → review): the approval is withdrawn.
    expect((await transition(w.s.token, id, 'review')).body).toMatchObject({ state: 'review', approved_at: null, approved_by: null });
  });

  it('mark-published (a post made by hand) is not gated', async () => {
    const agent = await token('recorder', ['read', 'publish']);
    const id = await inReview();
    const r = reply(
      await client(agent).POST(`${V1}/artifacts/{id}/mark-published`, {
        params: { path: { id } },
        body: { platform: 'x', url: 'https://x.com/ada_lovelace/status/1859951771532320873', idempotency_key: newIdempotencyKey() },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.state).toBe('published');
  });

  it('a schedule that comes due without approval (made while the gate was off) fails its run with approval_required', async () => {
    const agent = await token('early scheduler', ['read', 'publish']);
    const id = await inReview('Scheduled while the gate was off');
    await setGate(false);
    try {
      const at = new Date(w.s.running.deps.clock.now().getTime() + 1500).toISOString();
      const accepted = await publish(agent, id, { at });
      expect(accepted.status).toBe(202);
      expect(accepted.body.artifact).toMatchObject({ state: 'scheduled', approved_at: null });
      await setGate(true);
      const run = await waitForRun(w.s.running.deps, (accepted.body.run as { run_id: string }).run_id, { status: 'failed' });
      expect(run.errorCode).toBe('approval_required');
      expect(await getArtifact(w.s, id)).toMatchObject({ state: 'publish_failed', publish_error: { code: 'approval_required' } });
      expect(w.mastodon.state.posted.filter((p) => p.text.includes('gate was off'))).toEqual([]);
    } finally {
      await setGate(true);
    }
  });
});

describe('with the gate off', () => {
  it('a publish token publishes a review artifact as before (no approval recorded)', async () => {
    const agent = await token('ungated publisher', ['read', 'publish']);
    const id = await inReview('Posted without a gate');
    await setGate(false);
    try {
      const accepted = await publish(agent, id);
      expect(accepted.status).toBe(202);
      expect(accepted.body.artifact).toMatchObject({ state: 'publishing', approved_at: null });
      expect((await waitForRun(w.s.running.deps, (accepted.body.run as { run_id: string }).run_id)).status).toBe('succeeded');
    } finally {
      await setGate(true);
    }
  });
});

describe(`the migration (${testDbKind()})`, () => {
  it('leaves the gate off for workspaces that existed, and artifacts without an approval', async () => {
    migrated = await beforeMigration('20261128100000_approval_gate');
    const t = migrated.kind === 'sqlite' ? Date.UTC(2026, 10, 20, 9, 0, 0) : new Date(Date.UTC(2026, 10, 20, 9, 0, 0));
    await migrated.sql([
      [`INSERT INTO "Workspace" ("id","name","createdAt") VALUES (?,?,?)`, ['ws_old', 'Default workspace', t]],
      [
        `INSERT INTO "Artifact" ("id","workspaceId","pipelineId","sourcePostId","rootArtifactId","text","state","createdAt","updatedAt") VALUES (?,?,?,?,?,?,?,?,?)`,
        ['art_old', 'ws_old', 'pl_1', 'post_1', 'art_old', 'Hello 🌍', 'ready', t, t],
      ],
    ]);
    await migrated.migrate();
    const [ws] = await migrated.sql([[`SELECT "approvalRequired" FROM "Workspace" WHERE "id" = ?`, ['ws_old']]]);
    expect(Boolean(ws!.approvalRequired)).toBe(false);
    const [a] = await migrated.sql([[`SELECT "state","approvedAt","approvedBy" FROM "Artifact" WHERE "id" = ?`, ['art_old']]]);
    expect(a).toEqual({ state: 'ready', approvedAt: null, approvedBy: null });
  }, 180_000);
});
