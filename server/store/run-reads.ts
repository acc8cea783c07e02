// The reads of the drafting runs, coalesced: the runs of one claim start together (up to
// DRAFT_CONCURRENCY of them), and each reads its artifact, its pipeline, its source posts and their
// decodes one after the other. DataLoader gathers the reads that the runs make in the same turn of
// the event loop into one statement per table (`WHERE id IN (…)`), so a claim of 16 runs costs four
// reads instead of 64. No cache: every load reads the database (`cache: false`), so a run never
// sees an older row than a plain query would have given it.
import DataLoader from 'dataloader';
import type { ArtifactRow } from './artifacts.js';
import type { Db } from './database.js';
import type { DecodeRow } from './decodes.js';
import type { PipelineRow } from './pipelines.js';
import type { PostRow } from './posts.js';

/** A row of a workspace, asked for by id: the workspace is checked on every row, as the single reads do. */
interface Scoped {
  workspaceId: string;
  id: string;
}

interface Loaders {
  /** The statements these loaders sent (one per batch). */
  statements: number;
  artifacts: DataLoader<Scoped, ArtifactRow | null, string>;
  pipelines: DataLoader<Scoped, PipelineRow | null, string>;
  posts: DataLoader<Scoped, PostRow | null, string>;
  decodes: DataLoader<string, DecodeRow | null>;
}

const OPTIONS = { cache: false, maxBatchSize: 500 } as const;

const byDb = new WeakMap<Db, Loaders>();

/** Matches each key to its row (same id and workspace), in the keys' order, as DataLoader wants. */
function scoped<R extends { id: string; workspaceId: string }>(keys: readonly Scoped[], rows: R[]): (R | null)[] {
  const found = new Map(rows.map((r) => [r.id, r]));
  return keys.map((k) => {
    const r = found.get(k.id);
    return r && r.workspaceId === k.workspaceId ? r : null;
  });
}

function loadersOf(db: Db): Loaders {
  const known = byDb.get(db);
  if (known) return known;
  /** The distinct ids of a batch, counting the one statement the batch sends. */
  const ids = (keys: readonly Scoped[]) => {
    loaders.statements++;
    return [...new Set(keys.map((k) => k.id))];
  };
  const loaders: Loaders = {
    statements: 0,
    artifacts: new DataLoader(async (keys) => scoped(keys, await db.selectFrom('Artifact').selectAll().where('id', 'in', ids(keys)).execute()), {
      ...OPTIONS,
      cacheKeyFn: (k) => k.id,
    }),
    pipelines: new DataLoader(async (keys) => scoped(keys, await db.selectFrom('Pipeline').selectAll().where('id', 'in', ids(keys)).execute()), {
      ...OPTIONS,
      cacheKeyFn: (k) => k.id,
    }),
    posts: new DataLoader(async (keys) => scoped(keys, await db.selectFrom('SourcePost').selectAll().where('id', 'in', ids(keys)).execute()), {
      ...OPTIONS,
      cacheKeyFn: (k) => k.id,
    }),
    decodes: new DataLoader(async (postIds) => {
      loaders.statements++;
      const rows = await db
        .selectFrom('Decode')
        .selectAll()
        .where('postId', 'in', [...new Set(postIds)])
        .execute();
      const found = new Map(rows.map((r) => [r.postId, r]));
      return postIds.map((id) => found.get(id) ?? null);
    }, OPTIONS),
  };
  byDb.set(db, loaders);
  return loaders;
}

/** How many statements the loaders of `db` have sent (one per batch). */
export const runReadStatements = (db: Db) => loadersOf(db).statements;

export const loadArtifact = (db: Db, workspaceId: string, id: string) => loadersOf(db).artifacts.load({ workspaceId, id });
export const loadPipeline = (db: Db, workspaceId: string, id: string) => loadersOf(db).pipelines.load({ workspaceId, id });

/** The posts that still exist of `ids`, in no particular order (like `findPosts`). */
export async function loadPosts(db: Db, workspaceId: string, ids: string[]): Promise<PostRow[]> {
  const rows = await Promise.all(ids.map((id) => loadersOf(db).posts.load({ workspaceId, id })));
  return rows.filter((r): r is PostRow => r !== null);
}

/** The decodes of the posts `postIds` that have one (like `listDecodes`). */
export async function loadDecodes(db: Db, postIds: string[]): Promise<DecodeRow[]> {
  const rows = await Promise.all(postIds.map((id) => loadersOf(db).decodes.load(id)));
  return rows.filter((r): r is DecodeRow => r !== null);
}
