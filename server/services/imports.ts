// Imports of data exports, uploaded as the platforms hand them out. The upload is streamed into a
// blob (never held in memory) while its SHA-256 is taken; the export is then read once to check
// it and count what an ingest will import and what it leaves out; only then is the import
// recorded, with the `archive` account of its handle, in one transaction. A refused or failed
// upload leaves nothing behind. Ingest reads the newest import of the handle (`exportSource`).
import { createHash } from 'node:crypto';
import type { components } from '../../generated/api.js';
import { ArchiveError, bufferSource, scanExport, SKIP_REASONS, type ArchiveFormat, type ByteSource, type Scan } from '../adapters/archive/index.js';
import { archiveAdapter } from '../adapters/archive/adapter.js';
import { AppError, notFound, validationFailed } from '../errors.js';
import { isInstantText } from '../lib/instants.js';
import { holdingUploadSlot, receiveUpload, uploadBounds } from './upload-body.js';
import { blobStore } from '../store/blobs.js';
import * as store from '../store/imports.js';
import type { ImportRow } from '../store/imports.js';
import { findAccount } from '../store/accounts.js';
import { isUniqueViolation } from '../store/database.js';
import { accountView, sealedCredentials } from './accounts.js';
import type { Caller, ServiceDeps } from './context.js';

type S = components['schemas'];

export interface ImportRequest {
  handle: string;
  format?: string;
  include_non_public?: boolean;
  idempotency_key: string;
}

/** 422 naming the field (`body`, or `format`) and what is wrong with the export. */
function archiveAppError(err: ArchiveError): AppError {
  return validationFailed(err.field, `is not an export we can import: ${err.message}`);
}

/**
 * A stored summary as answered: imports recorded before a skip reason (or `unread_dates`) existed
 * count zero of it, and a first or last date outside the years 0001–9999 (recorded before dates
 * were checked where they are read) is null, as when no date could be read.
 */
function summaryView(summary: Omit<S['Import']['summary'], 'unread_dates'> & { unread_dates?: number }): S['Import']['summary'] {
  const zeros = Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as S['Import']['summary']['skipped'];
  return {
    ...summary,
    skipped: { ...zeros, ...summary.skipped },
    unread_dates: summary.unread_dates ?? 0,
    first_post_at: isInstantText(summary.first_post_at) ? summary.first_post_at : null,
    last_post_at: isInstantText(summary.last_post_at) ? summary.last_post_at : null,
  };
}

export function importView(row: ImportRow, account: S['Account'] | null): S['Import'] {
  return {
    id: row.id,
    handle: row.handle,
    format: row.format as S['Import']['format'],
    container: row.container as S['Import']['container'],
    status: row.status as S['Import']['status'],
    size_bytes: Number(row.sizeBytes),
    sha256: row.sha256,
    // SQLite keeps a boolean as 0/1, PostgreSQL as a boolean.
    include_non_public: Boolean(row.includeNonPublic),
    summary: summaryView(JSON.parse(row.summary) as Parameters<typeof summaryView>[0]),
    account,
    created_at: row.createdAt.toISOString(),
  };
}

const blobs = (deps: ServiceDeps) => blobStore(deps.db, deps.provider, deps.config.dataDir);

/** The stored bytes of an import, by range. */
export function blobSource(deps: ServiceDeps, blobId: string, size: number): ByteSource {
  const b = blobs(deps);
  return { size, read: (start, end) => b.read(blobId, start, end) };
}

/** Streams the body into a new blob; returns its id, size and SHA-256. Refused or broken off: nothing kept. */
async function receive(deps: ServiceDeps, body: AsyncIterable<Buffer>): Promise<{ blobId: string; size: number; sha256: string }> {
  const blobId = deps.ids.id('blob');
  const hash = createHash('sha256');
  const size = await receiveUpload(body, blobs(deps).create(blobId), uploadBounds(deps.config, 'import'), (chunk) => hash.update(chunk));
  return { blobId, size, sha256: hash.digest('hex') };
}

function normalizeHandle(handle: string): string {
  try {
    return archiveAdapter.normalizeHandle(handle);
  } catch (err) {
    throw validationFailed('handle', (err as Error).message.replace(/^an archive handle/, 'is'));
  }
}

async function scan(source: ByteSource, format: string | undefined, includeNonPublic: boolean, now: Date): Promise<Scan> {
  try {
    return await scanExport(source, { format: format ?? null, includeNonPublic, now });
  } catch (err) {
    if (err instanceof ArchiveError) throw archiveAppError(err);
    throw err;
  }
}

/**
 * Accepts an upload: 201 with the new import, or 200 with the first one when the same key and
 * the same bytes and options come again (the key with anything else is 422 `idempotency_key`).
 * It holds one of the workspace's upload slots from the first byte to the answer (429 when none is free).
 */
export const createImport = holdingUploadSlot(receiveImport);

async function receiveImport(
  deps: ServiceDeps,
  caller: Caller,
  q: ImportRequest,
  body: AsyncIterable<Buffer>,
): Promise<{ status: 200 | 201; body: S['Import'] }> {
  const handle = normalizeHandle(q.handle);
  const includeNonPublic = q.include_non_public ?? false;
  const got = await receive(deps, body);
  const requestHash = createHash('sha256')
    .update(JSON.stringify([got.sha256, handle, q.format ?? null, includeNonPublic]))
    .digest('hex');
  const replay = async () => {
    const first = await store.findImportByKey(deps.db, caller.workspaceId, q.idempotency_key);
    if (!first) return null;
    await blobs(deps).remove(got.blobId);
    if (first.requestHash !== requestHash) {
      throw validationFailed('idempotency_key', 'was already used for another upload (other bytes, handle, format or include_non_public); use a new key.');
    }
    return { status: 200 as const, body: importView(first, await accountOf(deps, first)) };
  };
  const earlier = await replay();
  if (earlier) return earlier;
  let found: Scan;
  try {
    found = await scan(blobSource(deps, got.blobId, got.size), q.format, includeNonPublic, deps.clock.now());
  } catch (err) {
    await blobs(deps).remove(got.blobId);
    throw err;
  }
  const now = deps.clock.now();
  const row: store.NewImport = {
    id: deps.ids.id('imp'),
    workspaceId: caller.workspaceId,
    handle,
    idempotencyKey: q.idempotency_key,
    requestHash,
    format: found.layout.format,
    container: found.layout.container,
    sizeBytes: got.size,
    sha256: got.sha256,
    blobId: got.blobId,
    includeNonPublic: includeNonPublic ? 1 : 0,
    summary: JSON.stringify(found.summary),
    ownUserId: found.ownUserId,
    createdAt: now,
  };
  let superseded: string[];
  let account;
  try {
    // The archive account of the handle: what `from-intent` with this handle ingests from.
    const key = { workspaceId: caller.workspaceId, platform: 'archive' as const, handle };
    ({ superseded, account } = await store.insertImport(deps.db, row, {
      id: deps.ids.id('acc'),
      ...key,
      credentials: sealedCredentials(deps, key, { secret: '', secondary: found.layout.format }),
      proxyUrl: null,
      now,
    }));
  } catch (err) {
    // Two uploads with one key at once: the second finds the first's row.
    const again = isUniqueViolation(err) ? await replay() : null;
    if (again) return again;
    await blobs(deps).remove(got.blobId);
    throw err;
  }
  for (const id of superseded)
    await blobs(deps)
      .remove(id)
      .catch(() => undefined);
  const created = await store.findImport(deps.db, caller.workspaceId, row.id);
  return { status: 201, body: importView(created!, accountView(account)) };
}

async function accountOf(deps: ServiceDeps, row: ImportRow) {
  const a = await findAccount(deps.db, row.workspaceId, 'archive', row.handle);
  return a ? accountView(a) : null;
}

export async function getImport(deps: ServiceDeps, caller: Caller, id: string): Promise<S['Import']> {
  const row = await store.findImport(deps.db, caller.workspaceId, id);
  if (!row) throw notFound('import');
  return importView(row, await accountOf(deps, row));
}

/** What an ingest of an archive handle reads: its newest import, or an export sent as `auth_material`. */
export interface ExportToRead {
  source: ByteSource;
  format: ArchiveFormat;
  includeNonPublic: boolean;
  ownUserId: string | null;
  /** Posts the scan counted (the run's progress total). */
  total: number;
}

export async function exportToRead(
  deps: ServiceDeps,
  workspaceId: string,
  handle: string,
  creds: { secret: string; secondary: string | null },
): Promise<ExportToRead> {
  // An upload leaves the account's credential empty; a later `accounts/connect` with the export's
  // content puts the content there, and then that is the newest export.
  const imp = creds.secret === '' ? await store.latestImport(deps.db, workspaceId, handle) : null;
  if (imp?.blobId) {
    const summary = JSON.parse(imp.summary) as { posts: number };
    return {
      source: blobSource(deps, imp.blobId, Number(imp.sizeBytes)),
      format: imp.format as ArchiveFormat,
      includeNonPublic: Boolean(imp.includeNonPublic),
      ownUserId: imp.ownUserId,
      total: summary.posts,
    };
  }
  // An export connected through accounts/connect: its content is the credential.
  const source = bufferSource(Buffer.from(creds.secret, 'utf8'));
  const found = await scan(source, creds.secondary ?? undefined, false, deps.clock.now());
  return { source, format: found.layout.format, includeNonPublic: false, ownUserId: found.ownUserId, total: found.summary.posts };
}
