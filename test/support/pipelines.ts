// Test flows through the typed client: connect an account, start a pipeline and wait for its
// ingest, read the recorded events.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newIdempotencyKey, unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { expectRunSucceeded, waitForRun } from './runs.js';
import type { TestServer } from './server.js';
import { findRows } from './rows.js';

export const V1 = '/api/agent/v1';
const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/archives');

/** The content of a sample export under test/fixtures/archives. */
export const archiveFixture = (name: string) => readFileSync(path.join(fixtures, name), 'utf8');

export function connect(s: TestServer, body: Omit<Schemas['ConnectAccountRequest'], 'idempotency_key'>, token?: string) {
  return unwrap(s.client(token).POST(`${V1}/accounts/connect`, { body: { ...body, idempotency_key: newIdempotencyKey() } }));
}

export function startPipeline(s: TestServer, handle: string, intent = 'Weekly posts about our releases', token?: string) {
  return unwrap(s.client(token).POST(`${V1}/pipelines/from-intent`, { body: { handle, intent, idempotency_key: newIdempotencyKey() } }));
}

/** Starts (or resumes) the pipeline and waits for its ingest to succeed. */
export async function ingest(s: TestServer, handle: string, intent?: string) {
  const started = await startPipeline(s, handle, intent);
  const { run, output } = await expectRunSucceeded(s.running.deps, started.run_id);
  return { ...started, run, output };
}

/** Starts the pipeline and waits for its ingest to fail; returns the failed run. */
export async function failedIngest(s: TestServer, handle: string, intent?: string, timeoutMs?: number) {
  const started = await startPipeline(s, handle, intent);
  const run = await waitForRun(s.running.deps, started.run_id, { timeoutMs });
  if (run.status !== 'failed') throw new Error(`expected the ingest to fail, it ${run.status}`);
  return { ...started, run };
}

/** Connects the sample archive `file` as `name` and ingests it. */
export async function ingestArchive(s: TestServer, file: string, name: string, format?: 'x' | 'linkedin' | 'mastodon') {
  await connect(s, { platform: 'archive', handle: name, auth_material: archiveFixture(file), ...(format ? { secondary_auth: format } : {}) });
  return ingest(s, name);
}

export async function listAllPosts(s: TestServer, pipelineId: string) {
  const page = await unwrap(s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: pipelineId }, query: { limit: 100 } } }));
  return page.data;
}

export interface StoredEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/** Events recorded in the outbox, oldest first (optionally of one type). */
export async function recordedEvents(s: TestServer, type?: string): Promise<StoredEvent[]> {
  const rows = await findRows(s.running.deps.db, 'Event', type ? { type } : {}, 'seq');
  return rows.map((r) => ({ id: r.id, type: r.type, data: JSON.parse(r.data) as Record<string, unknown> }));
}
