// Events: recording them in the outbox, reading them for the stream, and accepting them from the
// signed webhook receivers. Call `recordEvent` inside the transaction of the change that causes
// the event (as its last write: on PostgreSQL it takes the outbox lock until commit), then
// `deps.events.wake()` after the commit so that this instance's streams pick it up at once
// (other instances hear of it through PostgreSQL's NOTIFY, sent at commit).
import type { components } from '../../generated/api.js';
import { backendUnavailable, validationFailed } from '../errors.js';
import { representable } from '../lib/instants.js';
import { isUniqueViolation, type Db } from '../store/database.js';
import * as store from '../store/events.js';
import type { Caller, ServiceDeps } from './context.js';

export type EventEnvelope = components['schemas']['EventEnvelope'];
/** Every type the receivers accept, the alternative names included. */
export type EventType = EventEnvelope['type'];

/** The types the service stores and streams. */
export const CANONICAL_TYPES = [
  'ingest.completed',
  'post.ready',
  'post.retired',
  'webpage.ready',
  'decode.ready',
  'pattern.detected',
  'riff.ready',
  'riff.refined',
  'brief.ready',
  'brief.refined',
  'operator.error',
  'artifact.scheduled',
  'artifact.published',
  'artifact.publish_failed',
] as const satisfies readonly EventType[];
export type CanonicalType = (typeof CANONICAL_TYPES)[number];

/** Alternative names (a scrape wording, a platform-specific post wording) and their canonical type. */
export const TYPE_ALIASES: Readonly<Record<string, CanonicalType>> = {
  'scrape.completed': 'ingest.completed',
  'social_post.ready': 'post.ready',
};

export function canonicalType(type: string): CanonicalType | null {
  if ((CANONICAL_TYPES as readonly string[]).includes(type)) return type as CanonicalType;
  return TYPE_ALIASES[type] ?? null;
}

type RecordDeps = Pick<ServiceDeps, 'clock' | 'ids' | 'provider' | 'config'>;

/** Records an event in the outbox (and a pending delivery per WEBHOOK_TARGETS receiver). */
export async function recordEvent(tx: Db, deps: RecordDeps, workspaceId: string, type: CanonicalType, data: Record<string, unknown>) {
  const [envelope] = await recordEvents(tx, deps, workspaceId, [{ type, data }]);
  return envelope!;
}

/** Records several events at once, in this order (one insert: for producers of many events). */
export async function recordEvents(tx: Db, deps: RecordDeps, workspaceId: string, items: Array<{ type: CanonicalType; data: Record<string, unknown> }>) {
  const createdAt = deps.clock.now();
  const events = items.map(({ type, data }) => ({ id: `evt_${deps.ids.uuid()}`, workspaceId, type, data, createdAt, targets: deps.config.webhookTargets }));
  await store.appendEvents(tx, deps.provider, events);
  return events.map((e) => ({ id: e.id, type: e.type, created_at: createdAt.toISOString(), data: e.data }) as EventEnvelope);
}

/** The envelope of a stored event, as the stream and the emitter send it. */
export function envelopeOf(row: store.EventRow): EventEnvelope {
  return { id: row.id, type: row.type, created_at: row.createdAt.toISOString(), data: JSON.parse(row.data) as EventEnvelope['data'] } as EventEnvelope;
}

/**
 * The `events` filter of the stream: null for "every type". An unknown name is 422 naming it;
 * the alternative names select their canonical type.
 */
export function parseTypeFilter(raw: string | undefined): CanonicalType[] | null {
  if (raw === undefined) return null;
  const types = new Set<CanonicalType>();
  for (const name of raw.split(',')) {
    const t = canonicalType(name.trim());
    if (!t) throw validationFailed('events', `holds an unknown event type ${JSON.stringify(name)}; known types: ${CANONICAL_TYPES.join(', ')}.`);
    types.add(t);
  }
  return [...types];
}

/**
 * Where a stream that sends `Last-Event-ID` resumes: the sequence number of that event when it is
 * one of the caller's workspace and still retained, otherwise null (live events only).
 */
export async function resumeAfter(deps: Pick<ServiceDeps, 'db'>, caller: Caller, lastEventId: string | undefined): Promise<number | null> {
  if (!lastEventId) return null;
  const row = await store.findEventById(deps.db, lastEventId.trim());
  return row && row.workspaceId === caller.workspaceId ? row.seq : null;
}

/**
 * The workspace a received event belongs to: the owner of the first resource its data names
 * (pipeline, operator (a pipeline), riff or brief (artifacts), post, run, decode, pattern,
 * webpage, snapshot); else WEBHOOK_DEFAULT_WORKSPACE; else the instance's only workspace (a desktop).
 * Otherwise it cannot be placed: 503, so that the sender keeps retrying while an operator sets
 * WEBHOOK_DEFAULT_WORKSPACE.
 */
async function workspaceFor(deps: Pick<ServiceDeps, 'db' | 'config'>, data: Record<string, unknown>): Promise<string> {
  const owner = await store.workspaceOfResources(deps.db, data);
  if (owner) return owner;
  const configured = deps.config.webhookDefaultWorkspace;
  if (configured) {
    if (await store.workspaceExists(deps.db, configured)) return configured;
    throw backendUnavailable('WEBHOOK_DEFAULT_WORKSPACE names a workspace that does not exist; the event cannot be placed.', { status: 503 });
  }
  const sole = await store.soleWorkspace(deps.db);
  if (sole) return sole;
  throw backendUnavailable('The event names no resource of this instance and WEBHOOK_DEFAULT_WORKSPACE is not set; the event cannot be placed.', {
    status: 503,
  });
}

/**
 * The sender's `created_at` as a time the databases can store: a leap second (`:60`, valid in
 * RFC 3339, unknown to JavaScript dates) is read as `:59` plus 999 ms; a time outside the years
 * 0001–9999 in UTC (year 0 is valid ISO 8601 but not storable in PostgreSQL; `9999-12-31T23:00:00-02:00`
 * is year 10000) is refused.
 */
function createdAtOf(raw: string): Date {
  let d = new Date(raw);
  if (Number.isNaN(d.getTime())) d = new Date(new Date(raw.replace(/:60(?=(\.\d+)?(z|[+-]\d\d:\d\d)$)/i, ':59')).getTime() + 999);
  if (!representable(d)) throw validationFailed('body.created_at', `${JSON.stringify(raw)} is not a time this service can store.`);
  return d;
}

/**
 * Accepts a verified event from a receiver: stored under its own id and creation time and its
 * canonical type, in the workspace `workspaceFor` picks. An id already in the outbox is a
 * redelivery: nothing changes and `duplicate` is true.
 */
export async function receiveEvent(deps: ServiceDeps, envelope: EventEnvelope): Promise<{ duplicate: boolean }> {
  if (await store.findEventById(deps.db, envelope.id)) return { duplicate: true };
  const type = canonicalType(envelope.type);
  if (!type) throw validationFailed('body.type', `${JSON.stringify(envelope.type)} is not an event type.`);
  const data = envelope.data as Record<string, unknown>;
  const createdAt = createdAtOf(envelope.created_at);
  const workspaceId = await workspaceFor(deps, data);
  try {
    await store.appendEvents(deps.db, deps.provider, [{ id: envelope.id, workspaceId, type, data, createdAt, targets: deps.config.webhookTargets }]);
  } catch (err) {
    // Two deliveries of one event at the same moment: the second insert loses on the unique id.
    if (isUniqueViolation(err) && (await store.findEventById(deps.db, envelope.id))) return { duplicate: true };
    throw err;
  }
  deps.events.wake();
  return { duplicate: false };
}
