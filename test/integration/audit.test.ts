// The record of who did what (issue 32 item 4): a journey through the API by two named tokens and
// the default token, with the service publishing on its own, then GET /audit-events names the
// actor of every step, in order; cursor pages, filters, another workspace's token, a workspace
// export and import, and a backup keep or hide the record as they should.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { backupSqlite, restoreSqlite } from '../../server/services/backup.js';
import { exportWorkspace, importWorkspace, type WorkspaceManifest } from '../../server/services/workspace-move.js';
import { asAccepted, callWith, connect, draftPost, getArtifact, moveArtifact, publishingWorld, rawRequest, V1 } from '../support/api.js';
import { manifestOf, readEntries, relist, writeEntries } from '../support/crafted-archives.js';
import { testDbKind } from '../support/database.js';
import { expectRunSucceeded, waitForRun } from '../support/runs.js';
import { startTestServer, type TestServer } from '../support/server.js';

type Audit = Schemas['AuditEvent'];
const scratch = mkdtempSync(path.join(os.tmpdir(), 'cp-audit-'));
let world: Awaited<ReturnType<typeof publishingWorld>>;
const started: TestServer[] = [];
let since: string;
const tokens = { agent: { id: '', secret: '' }, reviewer: { id: '', secret: '' } };
const ids = { a: '', b: '' };

/** Every record after `since`, oldest first, through every page (of `limit`), as `token` sees them. */
async function recordOf(s: TestServer, query: Record<string, string> = {}, token = s.token, limit = 100): Promise<Audit[]> {
  const out: Audit[] = [];
  let cursor: string | null = null;
  do {
    const qs = new URLSearchParams({ created_after: since, limit: String(limit), ...query, ...(cursor ? { cursor } : {}) });
    const r = await rawRequest(s, `${V1}/audit-events?${qs}`, { token });
    expect(r.res.status, r.text).toBe(200);
    const page = r.body as unknown as Schemas['AuditEventList'];
    expect(page.data.length).toBeLessThanOrEqual(limit);
    out.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return out.reverse();
}

const steps = (list: Audit[]) => list.map((e) => `${e.actor.kind}:${e.actor.name} ${e.action} ${e.subject ? e.subject.id : '-'}`);

async function createToken(name: string, scopes: Schemas['TokenScope'][]) {
  const made = await unwrap(world.s.client().POST(`${V1}/tokens`, { body: { name, scopes } }));
  return { id: made.token.id, secret: made.secret };
}

async function draftAs(token: string) {
  const accepted = await unwrap(draftPost(world.s, world.pipelines.mastodon.postId, {}, token));
  await expectRunSucceeded(world.s.running.deps, accepted.run_id);
  return accepted.artifact_id;
}

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

beforeAll(async () => {
  world = await publishingWorld();
  const { s } = world;
  await new Promise((r) => setTimeout(r, 5));
  since = new Date().toISOString();
  // The journey: each step by the token that would take it.
  tokens.agent = await createToken('drafting agent ✍️', ['read', 'draft', 'publish', 'accounts']);
  tokens.reviewer = await createToken('Ana (reviewer)', ['read', 'approve']);
  const agent = tokens.agent.secret;
  ids.a = await draftAs(agent);
  const variant = await s.client(agent).PUT(`${V1}/artifacts/{id}/variants/{platform}`, {
    params: { path: { id: ids.a, platform: 'mastodon' } },
    body: { text: 'Release 2.4 is out: faster imports and a calmer inbox. 🚀 #release' },
  });
  expect(variant.response.status, JSON.stringify(variant.error)).toBeLessThan(300);
  await moveArtifact(s, ids.a, 'ready', { token: tokens.reviewer.secret });
  const now = asAccepted(
    await unwrap(
      s.client(agent).POST(`${V1}/artifacts/{id}/publish`, { params: { path: { id: ids.a } }, body: { idempotency_key: 'audit-journey-publish-a' } }),
    ),
  );
  await expectRunSucceeded(s.running.deps, now.run.run_id);
  ids.b = await draftAs(agent);
  await moveArtifact(s, ids.b, 'ready', { token: tokens.reviewer.secret });
  const later = s
    .client(agent)
    .POST(`${V1}/artifacts/{id}/publish`, { params: { path: { id: ids.b } }, body: { idempotency_key: 'audit-journey-schedule-b', at: inMs(3_600_000) } });
  expect(asAccepted(await unwrap(later)).artifact.state).toBe('scheduled');
  await unwrap(s.client(agent).DELETE(`${V1}/artifacts/{id}/schedule`, { params: { path: { id: ids.b } } }));
  await connect(world.s, { platform: 'mastodon', handle: world.mastodon.handle, auth_material: world.mastodon.state.token }, agent);
  const schema = { description: 'Release notes', fields: { version: { selectors: [{ selector: 'h1' }] } } };
  await unwrap(s.client(agent).PUT(`${V1}/fetch/schemas/{id}`, { params: { path: { id: 'release-notes' } }, body: schema }));
  await unwrap(s.client(agent).DELETE(`${V1}/fetch/schemas/{id}`, { params: { path: { id: 'release-notes' } } }));
  await unwrap(s.client().DELETE(`${V1}/tokens/{id}`, { params: { path: { id: tokens.reviewer.id } } }));
  // Scheduled a moment ahead: the service publishes it at its time, on its own.
  const due = asAccepted(
    await unwrap(
      s
        .client(agent)
        .POST(`${V1}/artifacts/{id}/publish`, { params: { path: { id: ids.b } }, body: { idempotency_key: 'audit-journey-due-b-now', at: inMs(1200) } }),
    ),
  );
  const run = await waitForRun(s.running.deps, due.run.run_id);
  expect(run.status).toBe('succeeded');
}, 180_000);

afterAll(async () => {
  for (const t of started) await t.stop();
  await world?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the record of who did what', () => {
  it('names the actor of every step of the journey, in order, with what it was done to', async () => {
    const { a, b } = ids;
    const [agent, reviewer] = ['agent:drafting agent ✍️', 'agent:Ana (reviewer)'];
    const account = (await recordOf(world.s, { action: 'account.connected' })).at(-1)?.subject?.id;
    expect(steps(await recordOf(world.s))).toEqual([
      `agent:first-launch token token.created ${tokens.agent.id}`,
      `agent:first-launch token token.created ${tokens.reviewer.id}`,
      `${agent} artifact.draft_requested ${a}`,
      `system:service artifact.drafted ${a}`,
      `${agent} artifact.edited ${a}`,
      `${reviewer} artifact.approved ${a}`,
      `${agent} artifact.publish_requested ${a}`,
      `system:service artifact.published ${a}`,
      `${agent} artifact.draft_requested ${b}`,
      `system:service artifact.drafted ${b}`,
      `${reviewer} artifact.approved ${b}`,
      `${agent} artifact.scheduled ${b}`,
      `${agent} artifact.unscheduled ${b}`,
      `${agent} account.connected ${account}`,
      `${agent} fetch_schema.saved release-notes`,
      `${agent} fetch_schema.deleted release-notes`,
      `agent:first-launch token token.revoked ${tokens.reviewer.id}`,
      `${agent} artifact.scheduled ${b}`,
      `system:service artifact.published ${b}`,
    ]);
    const all = await recordOf(world.s);
    for (const e of all) {
      if (e.actor.kind === 'system') expect(e.actor.id).toBeNull();
      else expect(e.actor.id).toMatch(/^tok_/);
      expect(e.summary.length).toBeGreaterThan(5);
      expect(JSON.stringify(e)).not.toContain(tokens.agent.secret);
      expect(JSON.stringify(e)).not.toContain(world.mastodon.state.token);
    }
    expect(all.find((e) => e.action === 'token.created')?.detail).toMatchObject({ name: 'drafting agent ✍️', scopes: ['read', 'draft', 'publish', 'accounts'] });
    const published = (await getArtifact(world.s, b)).published_url;
    expect(all.at(-1)?.detail).toMatchObject({ published_url: published });
  });

  it("gives an artifact's history with subject_id, and filters by actor, action and time", async () => {
    const history = await recordOf(world.s, { subject_id: ids.a });
    expect(history.map((e) => e.action)).toEqual([
      'artifact.draft_requested',
      'artifact.drafted',
      'artifact.edited',
      'artifact.approved',
      'artifact.publish_requested',
      'artifact.published',
    ]);
    const byReviewer = await recordOf(world.s, { actor_id: tokens.reviewer.id });
    expect(byReviewer.map((e) => [e.action, e.subject?.id])).toEqual([
      ['artifact.approved', ids.a],
      ['artifact.approved', ids.b],
    ]);
    expect((await recordOf(world.s, { action: 'artifact.published' })).map((e) => e.subject?.id)).toEqual([ids.a, ids.b]);
    const all = await recordOf(world.s);
    const cut = all[5]!.created_at;
    expect((await recordOf(world.s, { created_before: cut })).every((e) => e.created_at < cut)).toBe(true);
    expect((await recordOf(world.s, { created_after: cut })).length).toBeGreaterThan(0);
    expect((await recordOf(world.s, { created_after: cut })).every((e) => e.created_at >= cut)).toBe(true);
    const window = await rawRequest(world.s, `${V1}/audit-events?created_after=${cut}&created_before=${cut}`);
    expect(window.res.status).toBe(422);
    expect(window.body.error?.message).toContain('created_before');
    const badAction = await rawRequest(world.s, `${V1}/audit-events?action=DROP%20TABLE`);
    expect(badAction.res.status).toBe(422);
    expect(badAction.body.error?.message).toContain('action');
  });

  it('pages with a cursor bound to its filters: every record once, newest first', async () => {
    const whole = await recordOf(world.s);
    expect(whole.length).toBeGreaterThan(7);
    const paged = await recordOf(world.s, {}, world.s.token, 3);
    expect(paged.map((e) => e.id)).toEqual(whole.map((e) => e.id));
    const first = await unwrap(world.s.client().GET(`${V1}/audit-events`, { params: { query: { limit: 2 } } }));
    expect(first.data[0]!.created_at >= first.data[1]!.created_at).toBe(true);
    expect(first.next_cursor).toEqual(expect.any(String));
    const other = await rawRequest(world.s, `${V1}/audit-events?action=artifact.approved&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect(other.res.status).toBe(400);
    const tampered = await rawRequest(world.s, `${V1}/audit-events?cursor=${encodeURIComponent(`${first.next_cursor!}x`)}`);
    expect(tampered.res.status).toBe(400);
  });

  it("shows another workspace's token nothing of this one", async () => {
    const stranger = await world.s.newWorkspace('Stranger');
    const theirs = await unwrap(world.s.client(stranger).GET(`${V1}/audit-events`, { params: { query: { limit: 100 } } }));
    const ours = new Set((await recordOf(world.s)).map((e) => e.id));
    expect(theirs.data.filter((e) => ours.has(e.id))).toEqual([]);
    expect((await unwrap(world.s.client(stranger).GET(`${V1}/audit-events`, { params: { query: { subject_id: ids.a } } }))).data).toEqual([]);
    expect((await unwrap(world.s.client(stranger).GET(`${V1}/audit-events`, { params: { query: { actor_id: tokens.agent.id } } }))).data).toEqual([]);
  });

  it('names a person signed in to the desk as the person: the sign-in, an approval, a rotation, the gate, and signing out', async () => {
    const { s } = world;
    const from = new Date().toISOString();
    const link = await callWith(s, 'POST', '/api/desk/sign-in-links', s.token, { name: 'Grace (editor)' });
    expect(link.status).toBe(201);
    const exchanged = await callWith(s, 'POST', '/api/desk/sign-in', null, { code: link.body.code });
    expect(exchanged.status).toBe(200);
    const session = { id: exchanged.body.id as string, secret: exchanged.body.token as string };
    const id = await draftAs(tokens.agent.secret);
    await moveArtifact(s, id, 'ready', { token: session.secret });
    expect((await getArtifact(s, id)).approved_by).toBe('Grace (editor)');
    const rotated = await unwrap(
      s.client(session.secret).POST(`${V1}/tokens/{id}/rotate`, { params: { path: { id: tokens.agent.id } }, body: { overlap_seconds: 60 } }),
    );
    await unwrap(s.client(session.secret).PATCH(`${V1}/workspace`, { body: { approval_required: true } }));
    await unwrap(s.client(session.secret).DELETE(`${V1}/tokens/{id}`, { params: { path: { id: session.id } } }));
    const person = 'person:Grace (editor)';
    expect(steps(await recordOf(s, { created_after: from })).filter((l) => l.startsWith('person:'))).toEqual([
      `${person} desk.signed_in ${session.id}`,
      `${person} artifact.approved ${id}`,
      `${person} token.rotated ${tokens.agent.id}`,
      `${person} workspace.updated ${world.workspaceId}`,
      `${person} token.revoked ${session.id}`,
    ]);
    const byPerson = await recordOf(s, { created_after: from, actor_id: session.id });
    expect(byPerson).toHaveLength(5);
    expect(byPerson.find((e) => e.action === 'token.rotated')?.detail).toMatchObject({ new_token_id: rotated.token.id });
    for (const e of byPerson) expect(JSON.stringify(e)).not.toContain(session.secret);
    tokens.agent.secret = rotated.secret;
  });

  it('records the first launch (the workspace and its default token) as the service', async () => {
    const first = await unwrap(world.s.client().GET(`${V1}/audit-events`, { params: { query: { action: 'workspace.created' } } }));
    expect(first.data.map((e) => [e.actor, e.subject])).toEqual([
      [
        { kind: 'system', id: null, name: 'service' },
        { type: 'workspace', id: world.workspaceId },
      ],
    ]);
  });

  it('records nothing again for a replayed request', async () => {
    const before = (await recordOf(world.s, { subject_id: ids.a })).length;
    const again = await world.s.client(tokens.agent.secret).POST(`${V1}/artifacts/{id}/publish`, {
      params: { path: { id: ids.a } },
      body: { idempotency_key: 'audit-journey-publish-a' },
    });
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await recordOf(world.s, { subject_id: ids.a })).length).toBe(before);
  });

  it('is kept by a workspace export and import (with the import recorded), and refuses a record naming another workspace', async () => {
    const file = path.join(scratch, 'ws.tar.gz');
    const manifest = await exportWorkspace(world.s.running.deps, file, { workspaceId: world.workspaceId });
    expect(manifest.tables.find((t) => t.table === 'AuditEvent')?.rows).toBeGreaterThan(15);
    const dst = await startTestServer({ kind: testDbKind(), env: { JOB_POLL_MS: '60000' } });
    started.push(dst);
    const { token } = await importWorkspace(dst.running.deps, file, { scratch: path.join(scratch, 'in') });
    const there = await recordOf(dst, {}, token);
    const here = await recordOf(world.s);
    expect(there.slice(0, here.length)).toEqual(here);
    expect(there.at(-1)).toMatchObject({
      action: 'workspace.imported',
      actor: { kind: 'operator', id: null },
      subject: { type: 'workspace', id: world.workspaceId },
    });

    // Crafted records: refused before anything is written.
    const stranger = await startTestServer({ kind: testDbKind(), env: { JOB_POLL_MS: '60000' } });
    started.push(stranger);
    await stranger.newWorkspace('Stranger');
    const theirToken = (await stranger.running.deps.db.selectFrom('AgentToken').select('id').execute()).map((r) => r.id);
    const entries = await readEntries(file);
    const m = manifestOf<WorkspaceManifest>(entries, 'manifest.json');
    const table = entries.find((e) => e.name === 'tables/AuditEvent.jsonl')!;
    const rows = table.data.toString('utf8').trim().split('\n');
    const crafted = path.join(scratch, 'crafted.tar.gz');
    const forge = async (row: Record<string, unknown>) => {
      table.data = Buffer.from(`${[...rows, JSON.stringify({ ...(JSON.parse(rows[0]!) as Record<string, unknown>), ...row })].join('\n')}\n`);
      m.manifest.tables.find((t) => t.table === 'AuditEvent')!.rows = rows.length + 1;
      relist(m.manifest.files, table.name, table.data);
      m.put(m.manifest);
      await writeEntries(crafted, entries);
    };
    // A record claiming an actor that is a token of another workspace on the target.
    await forge({ id: 'aud_forged_actor', actorId: theirToken[0] });
    await expect(importWorkspace(stranger.running.deps, crafted, { scratch: path.join(scratch, 'in-2') })).rejects.toThrow(
      /AuditEvent aud_forged_actor: its actorId names AgentToken .*another workspace/,
    );
    // A record of another workspace.
    await forge({ id: 'aud_foreign', workspaceId: 'ws_someone_else' });
    await expect(importWorkspace(stranger.running.deps, crafted, { scratch: path.join(scratch, 'in-3') })).rejects.toThrow(
      /AuditEvent aud_foreign: its workspaceId "ws_someone_else" is not the archive's workspace/,
    );
    expect(await stranger.running.deps.db.selectFrom('AuditEvent').select('id').where('workspaceId', '=', world.workspaceId).execute()).toEqual([]);
  }, 120_000);

  it.runIf(testDbKind() === 'sqlite')('is in a backup, whole, after a restore', async () => {
    const file = path.join(scratch, 'backup.tar.gz');
    await backupSqlite(world.s.db.dataDir, file);
    const restored = path.join(scratch, 'restored');
    await restoreSqlite(restored, file);
    const db = new Sqlite(path.join(restored, 'content-pipeline.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT id FROM AuditEvent WHERE workspaceId = ? ORDER BY createdAt, id').all(world.workspaceId) as Array<{ id: string }>;
      const ours = (await recordOf(world.s)).map((e) => e.id);
      expect(rows.map((r) => r.id)).toEqual(expect.arrayContaining(ours));
    } finally {
      db.close();
    }
  });
});
