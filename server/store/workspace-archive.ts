// The rows of one workspace, table by table, for `cpa admin workspace export` / `import`
// (server/services/workspace-move.ts). WORKSPACE_TABLES says, for every table of the schema, how
// its rows belong to a workspace (their own `workspaceId` column, or through a parent row) or why
// they stay behind: a new table is one line here, and the type (a record over every table of
// tables.ts) and test/integration/workspace-move.test.ts fail until it is added.
import { sql } from 'kysely';
import { transaction, type Db, type Provider } from './database.js';
import { appendEvents } from './events.js';
import type { DB } from './tables.js';

type Table = keyof DB;

export interface Exported {
  /** How a row belongs to the workspace: a column holding the workspace id, or a column naming a row of a parent table that does. */
  scope: { column: string } | { column: string; parent: Table; parentColumn: string };
  /** The columns that order the rows (the primary key). */
  key: string[];
  /** Only rows at most this many days old by this column (events: the last 7 days). */
  recent?: { column: string; days: number };
  /** Columns not carried: the target instance assigns them (Event.seq, the outbox order). */
  omit?: string[];
}

export type Scope = Exported | { leftOut: string };

const own = (key: string[] = ['id']): Exported => ({ scope: { column: 'workspaceId' }, key });

/** Every table: exported (in this order: parents before children) or left out, with why. */
export const WORKSPACE_TABLES: { [T in Table]: Scope } = {
  Workspace: { scope: { column: 'id' }, key: ['id'] },
  AgentToken: { leftOut: 'credentials: the import issues the workspace a token of the new instance’s own (an archive’s tokens grant nothing)' },
  Account: own(),
  Pipeline: own(),
  Import: own(),
  MediaUpload: own(),
  SourcePost: own(),
  Decode: own(),
  Pattern: own(),
  Run: own(),
  Artifact: own(),
  ArtifactDestination: own(['artifactId', 'destination']),
  ArtifactVariant: own(['artifactId', 'platform']),
  ArtifactUpload: own(['artifactId', 'uploadId']),
  PublishedPart: { scope: { column: 'artifactId', parent: 'Artifact', parentColumn: 'id' }, key: ['artifactId', 'destination', 'position'] },
  PublishedPartMedia: { scope: { column: 'artifactId', parent: 'Artifact', parentColumn: 'id' }, key: ['artifactId', 'destination', 'position'] },
  Session: own(['id']),
  SessionItem: own(),
  VariantRound: own(),
  Activity: own(),
  Source: own(),
  Snapshot: own(),
  ExtractionSchema: own(['id']),
  AuditEvent: own(),
  Event: { ...own(['seq']), recent: { column: 'createdAt', days: 7 }, omit: ['seq'] },
  OAuthAuthorization: { leftOut: 'sign-ins in progress last 10 minutes; an account they connected is carried with its grant' },
  OAuthClient: { leftOut: 'the old instance’s app registrations on Mastodon instances, bound to its callback address' },
  IdempotencyRecord: { leftOut: 'replays of requests made to the old instance (they expire within a day)' },
  RateLimitWindow: { leftOut: 'rate-limit counters of the old instance' },
  Setting: { leftOut: 'instance-wide settings (the cursor-signing key), not a workspace’s' },
  BlobChunk: { leftOut: 'blob bytes: carried as files under media/ and written into the new instance’s blob store' },
  Delivery: { leftOut: 'webhook deliveries to the old instance’s receivers' },
  DeliveryAttempt: { leftOut: 'attempts of webhook deliveries to the old instance’s receivers' },
};

/**
 * The references a row of the archive holds to other rows, by column: each must name a row of the
 * same archive, or no row of the instance it is imported into (a row of another workspace there is
 * refused). `json` columns hold JSON text whose ids `ids` lists; `manual` values (`manual:<platform>`,
 * a destination posted by hand) name no row.
 */
export interface Reference {
  column: string;
  table: Table;
  /** For a JSON column: the ids it names. */
  ids?: (value: unknown) => unknown[];
  manual?: true;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const field = (key: string) => (v: unknown) => list(v).map((x) => (x && typeof x === 'object' ? (x as Record<string, unknown>)[key] : undefined));
const key = (k: string) => (v: unknown) => [v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined];

export const WORKSPACE_REFERENCES: Partial<Record<Table, Reference[]>> = {
  Pipeline: [{ column: 'destinations', table: 'Account', ids: field('account_id') }],
  SourcePost: [{ column: 'pipelineId', table: 'Pipeline' }],
  Decode: [{ column: 'postId', table: 'SourcePost' }],
  Pattern: [{ column: 'pipelineId', table: 'Pipeline' }],
  Run: [
    { column: 'pipelineId', table: 'Pipeline' },
    { column: 'input', table: 'Artifact', ids: key('artifact_id') },
    { column: 'input', table: 'Source', ids: key('source_id') },
  ],
  Artifact: [
    { column: 'pipelineId', table: 'Pipeline' },
    { column: 'sourcePostId', table: 'SourcePost' },
    { column: 'parentArtifactId', table: 'Artifact' },
    { column: 'rootArtifactId', table: 'Artifact' },
    { column: 'publishRunId', table: 'Run' },
    { column: 'ancestors', table: 'Artifact', ids: list },
    { column: 'sourcePostIds', table: 'SourcePost', ids: list },
    { column: 'media', table: 'MediaUpload', ids: field('upload_id') },
    { column: 'media', table: 'SourcePost', ids: field('source_post_id') },
  ],
  ArtifactDestination: [
    { column: 'artifactId', table: 'Artifact' },
    { column: 'destination', table: 'Account', manual: true },
    { column: 'accountId', table: 'Account' },
    { column: 'runId', table: 'Run' },
  ],
  ArtifactVariant: [{ column: 'artifactId', table: 'Artifact' }],
  ArtifactUpload: [
    { column: 'artifactId', table: 'Artifact' },
    { column: 'uploadId', table: 'MediaUpload' },
  ],
  PublishedPart: [
    { column: 'artifactId', table: 'Artifact' },
    { column: 'destination', table: 'Account', manual: true },
  ],
  PublishedPartMedia: [
    { column: 'artifactId', table: 'Artifact' },
    { column: 'destination', table: 'Account', manual: true },
  ],
  SessionItem: [
    { column: 'sessionId', table: 'Session' },
    { column: 'artifactId', table: 'Artifact' },
    { column: 'sourceId', table: 'Source' },
  ],
  VariantRound: [
    { column: 'sessionId', table: 'Session' },
    { column: 'variantId', table: 'SessionItem' },
    { column: 'runId', table: 'Run' },
    { column: 'artifactId', table: 'Artifact' },
  ],
  Activity: [{ column: 'sessionId', table: 'Session' }],
  Source: [{ column: 'lastSnapshotId', table: 'Snapshot' }],
  Snapshot: [{ column: 'sourceId', table: 'Source' }],
  // The record names its actor (a token of the old instance: not in the archive, and no token of
  // another workspace here) and its subject, which is of one of these tables (or a session or an
  // extraction schema, named within the workspace): none may be a row of another workspace here.
  AuditEvent: [
    { column: 'actorId', table: 'AgentToken' },
    ...(['Artifact', 'Pipeline', 'Account', 'Import', 'MediaUpload', 'AgentToken', 'Source', 'OAuthAuthorization'] as const).map((table) => ({
      column: 'subjectId',
      table,
    })),
  ],
};

/** Which of `ids` are rows of `table` on this instance (by its `id` column; Session by its id in any workspace). */
export async function existingIds(db: Db, table: Table, ids: string[]): Promise<string[]> {
  const q = db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
  const found: string[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await q
      .selectFrom(table)
      .select('id')
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const r of rows) found.push(r.id as string);
  }
  return found;
}

export const exportedTables = (): Array<[Table, Exported]> =>
  (Object.entries(WORKSPACE_TABLES) as Array<[Table, Scope]>).filter((e): e is [Table, Exported] => !('leftOut' in e[1]));

export type ColumnKind = 'date' | 'boolean' | 'bytes' | 'other';

/** The columns of a table on this database, with what kind of value each holds (dates, booleans need converting between JSON and the database). */
export async function columnKinds(db: Db, provider: Provider, table: Table): Promise<Map<string, ColumnKind>> {
  const out = new Map<string, ColumnKind>();
  if (provider === 'sqlite') {
    const { rows } = await sql<{ name: string; type: string }>`SELECT name, type FROM pragma_table_info(${table})`.execute(db);
    for (const r of rows) {
      const t = r.type.toUpperCase();
      out.set(r.name, t === 'DATETIME' ? 'date' : t === 'BOOLEAN' ? 'boolean' : t === 'BLOB' ? 'bytes' : 'other');
    }
  } else {
    const { rows } = await sql<{
      name: string;
      type: string;
    }>`SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`.execute(
      db,
    );
    for (const r of rows) out.set(r.name, r.type.startsWith('timestamp') ? 'date' : r.type === 'boolean' ? 'boolean' : r.type === 'bytea' ? 'bytes' : 'other');
  }
  return out;
}

/** The tables of the database (the migrations' bookkeeping left out). */
export async function databaseTables(db: Db, provider: Provider): Promise<string[]> {
  const { rows } =
    provider === 'sqlite'
      ? await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations'`.execute(
          db,
        )
      : await sql<{
          name: string;
        }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'`.execute(
          db,
        );
  return rows.map((r) => r.name).sort();
}

/** The rows of `table` that belong to the workspace, in key order, a page at a time. */
export async function* workspaceRows(
  db: Db,
  table: Table,
  spec: Exported,
  workspaceId: string,
  now: Date,
  pageSize = 1000,
): AsyncGenerator<Array<Record<string, unknown>>> {
  const sinceOf = spec.recent ? new Date(now.getTime() - spec.recent.days * 86_400_000) : null;
  let offset = 0;
  for (;;) {
    // Dynamic table and column names: the query is built with Kysely's untyped builder.
    const q = db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
    let query = q.selectFrom(table).selectAll();
    if ('parent' in spec.scope) {
      const { column, parent, parentColumn } = spec.scope;
      query = query.where(column, 'in', q.selectFrom(parent).select(parentColumn).where('workspaceId', '=', workspaceId));
    } else query = query.where(spec.scope.column, '=', workspaceId);
    if (spec.recent && sinceOf) query = query.where(spec.recent.column, '>=', sinceOf);
    for (const k of spec.key) query = query.orderBy(k);
    const rows = await query.limit(pageSize).offset(offset).execute();
    if (rows.length) yield rows;
    if (rows.length < pageSize) return;
    offset += rows.length;
  }
}

export async function workspaceIds(db: Db): Promise<string[]> {
  return (await db.selectFrom('Workspace').select('id').orderBy('createdAt').execute()).map((r) => r.id);
}

/** Runs `fn` on one consistent view of the database (PostgreSQL: REPEATABLE READ; SQLite: one read transaction, a WAL snapshot). */
export function readSnapshot<T>(db: Db, provider: Provider, fn: (tx: Db) => Promise<T>): Promise<T> {
  return provider === 'postgresql' ? db.transaction().setIsolationLevel('repeatable read').execute(fn) : transaction(db, fn);
}

/** Writes rows into `table` (in the caller's transaction), in batches that stay under both databases' parameter limits. Events go through the outbox (a new `seq`, in order). */
export async function insertRows(tx: Db, provider: Provider, table: Table, rows: Array<Record<string, unknown>>): Promise<void> {
  if (!rows.length) return;
  if (table === 'Event') {
    await appendEvents(
      tx as never,
      provider,
      rows.map((r) => ({
        id: r.id as string,
        workspaceId: r.workspaceId as string,
        type: r.type as string,
        data: JSON.parse(r.data as string) as Record<string, unknown>,
        createdAt: r.createdAt as Date,
        targets: [],
      })),
    );
    return;
  }
  const columns = Object.keys(rows[0]!).length;
  const batch = Math.max(1, Math.floor(30_000 / Math.max(1, columns)));
  const q = tx as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
  for (let i = 0; i < rows.length; i += batch)
    await q
      .insertInto(table)
      .values(rows.slice(i, i + batch))
      .execute();
}

/** Whether a workspace of this id exists. */
export async function workspaceExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('Workspace').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

export { transaction };
