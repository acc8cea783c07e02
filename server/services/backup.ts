// Backup and restore of a desktop (SQLite) instance: `cpa admin backup FILE` while it runs,
// `cpa admin restore FILE` on a stopped one (docs/operations.md, "Backup and restore").
//
// The archive (a .tar.gz) holds the database, the blobs its rows name (uploaded exports, images),
// the credentials key and the desktop token file, with a manifest (`backup.json`: format, version,
// the migrations, and each file's size and SHA-256) that restore checks before it writes anything.
//
// Consistency while the server writes:
// - the database is copied with `VACUUM INTO`, one read transaction: a snapshot of every committed
//   row at one moment, never a half-written one (the online backup API restarts from the start
//   whenever another connection writes, which a busy server does all the time; VACUUM INTO does not);
// - blob files are write-once; they are hard-linked (copied across file systems) into the staging
//   folder before and after the snapshot, so a blob the snapshot names is kept even when the server
//   deletes it meanwhile; then each blob the snapshot names is checked (present, its size and
//   SHA-256 as its row says), the ones it does not name are left out, and a backup that misses one
//   (created and deleted in the instant between the passes) is taken again.
import { existsSync, linkSync, copyFileSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { ArchiveError, describeFiles, readTarGz, rethrowAs, writeTarGz, type ArchiveEntry } from './tar-archive.js';
import { KEY_FILE } from './crypto.js';
import { TOKEN_FILE } from '../../shared/token-file.js';

export const BACKUP_FORMAT = 'content-pipeline-backup';
export const BACKUP_VERSION = 1;
const DB_FILE = 'content-pipeline.db';
const MANIFEST = 'backup.json';
const BLOB_NAME = /^[A-Za-z0-9_-]+$/;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  created_at: string;
  database: 'sqlite';
  migrations: string[];
  rows: Record<string, number>;
  files: Array<{ path: string; bytes: number; sha256: string }>;
}

export class BackupError extends ArchiveError {}

/** Hard-links (or copies, across file systems) every blob file of `from` not yet in `to`. */
function linkBlobs(from: string, to: string): void {
  if (!existsSync(from)) return;
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    if (!BLOB_NAME.test(name) || existsSync(path.join(to, name))) continue;
    try {
      linkSync(path.join(from, name), path.join(to, name));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue; // deleted meanwhile: checked below if the snapshot names it
      if (code !== 'EXDEV' && code !== 'EPERM') throw err;
      try {
        copyFileSync(path.join(from, name), path.join(to, name));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }
}

interface BlobRef {
  blobId: string;
  sizeBytes: number | null;
  sha256: string | null;
}

/** The blobs the snapshot's rows name, with what their rows say of their bytes. */
function blobsNamed(db: Sqlite.Database): BlobRef[] {
  const imports = db.prepare('SELECT blobId, sizeBytes, sha256 FROM "Import" WHERE blobId IS NOT NULL').all() as BlobRef[];
  // An image's row gives the hash of the bytes stored.
  const media = db.prepare('SELECT blobId, sizeBytes, sha256 FROM "MediaUpload"').all() as BlobRef[];
  return [...imports, ...media];
}

const ROW_TABLES = ['Workspace', 'Pipeline', 'SourcePost', 'Artifact', 'ArtifactVariant', 'Run', 'Import', 'MediaUpload', 'Account', 'Event'];

/** Stages one attempt in `stage`: the snapshot, the blobs it names, the keys; null when a named blob went missing. */
async function stageOnce(dataDir: string, stage: string): Promise<{ migrations: string[]; rows: Record<string, number> } | { missing: string }> {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(path.join(stage, 'blobs'), { recursive: true });
  const blobDir = path.join(dataDir, 'blobs');
  linkBlobs(blobDir, path.join(stage, 'blobs'));
  const source = new Sqlite(path.join(dataDir, DB_FILE), { readonly: true, fileMustExist: true });
  try {
    source.pragma('busy_timeout = 10000');
    source.prepare('VACUUM INTO ?').run(path.join(stage, DB_FILE));
  } finally {
    source.close();
  }
  linkBlobs(blobDir, path.join(stage, 'blobs'));
  const snap = new Sqlite(path.join(stage, DB_FILE), { readonly: true });
  try {
    const named = blobsNamed(snap);
    const keep = new Set(named.map((b) => b.blobId));
    for (const b of named) {
      const file = path.join(stage, 'blobs', b.blobId);
      if (!existsSync(file)) return { missing: b.blobId };
    }
    for (const name of readdirSync(path.join(stage, 'blobs'))) if (!keep.has(name)) rmSync(path.join(stage, 'blobs', name));
    const migrations = (
      snap
        .prepare('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name')
        .all() as Array<{
        migration_name: string;
      }>
    ).map((r) => r.migration_name);
    const rows: Record<string, number> = {};
    for (const t of ROW_TABLES) rows[t] = (snap.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n;
    return { migrations, rows };
  } finally {
    snap.close();
  }
}

/**
 * Writes a backup of the SQLite instance in `dataDir` to `file` (a .tar.gz), while the server may
 * be running. Returns the manifest written.
 */
export async function backupSqlite(dataDir: string, file: string, clock: () => Date = () => new Date()): Promise<BackupManifest> {
  if (!existsSync(path.join(dataDir, DB_FILE)))
    throw new BackupError(`No database at ${path.join(dataDir, DB_FILE)}: is DATA_DIR the instance's data directory?`);
  const stage = `${file}.staging-${process.pid}`;
  try {
    let staged: Awaited<ReturnType<typeof stageOnce>> | null = null;
    for (let attempt = 1; attempt <= 3; attempt++) {
      staged = await stageOnce(dataDir, stage);
      if (!('missing' in staged)) break;
    }
    if (!staged || 'missing' in staged)
      throw new BackupError(`Blob ${staged && 'missing' in staged ? staged.missing : '?'} kept disappearing while the backup ran; try again.`);
    for (const name of [KEY_FILE, TOKEN_FILE]) {
      if (existsSync(path.join(dataDir, name))) copyFileSync(path.join(dataDir, name), path.join(stage, name));
    }
    const names = [DB_FILE, KEY_FILE, TOKEN_FILE].filter((n) => existsSync(path.join(stage, n)));
    names.push(...readdirSync(path.join(stage, 'blobs')).map((n) => `blobs/${n}`));
    const files = await describeFiles(stage, names);
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      created_at: clock().toISOString(),
      database: 'sqlite',
      migrations: staged.migrations,
      rows: staged.rows,
      files,
    };
    await writeTarGz(`${file}.tmp-${process.pid}`, {
      stage,
      mtime: new Date(manifest.created_at),
      head: [{ name: MANIFEST, body: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) }],
      files,
    });
    renameSync(`${file}.tmp-${process.pid}`, file);
    return manifest;
  } finally {
    rmSync(stage, { recursive: true, force: true });
    rmSync(`${file}.tmp-${process.pid}`, { force: true });
  }
}

/** Reads and checks a backup's manifest and files into `into`; refuses a damaged or foreign archive before writing to the data directory. */
async function unpack(file: string, into: string): Promise<{ manifest: BackupManifest; entries: Map<string, ArchiveEntry> }> {
  rmSync(into, { recursive: true, force: true });
  const { manifest: m, entries } = await readTarGz<BackupManifest>(file, into, {
    manifestName: MANIFEST,
    allowed: (name) => name === DB_FILE || name === KEY_FILE || name === TOKEN_FILE || (name.startsWith('blobs/') && BLOB_NAME.test(name.slice(6))),
    foreign: (name) => `The archive holds ${JSON.stringify(name)}, which no backup of this service has: not restoring it.`,
    notReadable: (err) => `${file} is not a readable backup (.tar.gz): ${err.message}`,
    noManifest: 'The archive has no readable backup.json: not a backup of this service.',
  }).catch(rethrowAs(BackupError));
  if ((m.format as string) !== BACKUP_FORMAT) throw new BackupError(`${file} is not a backup of this service (no ${MANIFEST} with format ${BACKUP_FORMAT}).`);
  if (m.version !== BACKUP_VERSION) throw new BackupError(`${file} is a version ${m.version} backup; this service reads version ${BACKUP_VERSION}.`);
  if (!entries.has(DB_FILE)) throw new BackupError(`${file} holds no database.`);
  return { manifest: m, entries };
}

/**
 * Restores a backup into `dataDir` (the instance must be stopped). A data directory that already
 * holds a database is refused unless `replace`, which moves what was there into
 * `dataDir/replaced-<time>/` rather than deleting it.
 */
export async function restoreSqlite(
  dataDir: string,
  file: string,
  opts: { replace?: boolean; clock?: () => Date } = {},
): Promise<{ manifest: BackupManifest; movedAside: string | null }> {
  const now = (opts.clock ?? (() => new Date()))();
  if (existsSync(path.join(dataDir, DB_FILE)) && !opts.replace)
    throw new BackupError(
      `${dataDir} already holds a database; restore into an empty data directory, or pass --replace (what is there is moved aside, not deleted).`,
    );
  const made = !existsSync(dataDir);
  mkdirSync(dataDir, { recursive: true });
  const stage = path.join(dataDir, `.restore-${process.pid}`);
  rmSync(stage, { recursive: true, force: true });
  let done = false;
  try {
    const { manifest, entries } = await unpack(file, stage);
    // Each file restored is an entry the manifest lists, read into the staging folder under a name
    // of our own; it is moved to the place its (checked) name says, and nowhere else.
    const restored = path.join(stage, 'restored');
    mkdirSync(path.join(restored, 'blobs'), { recursive: true });
    for (const e of entries.values()) renameSync(e.staged, path.join(restored, e.path));
    let movedAside: string | null = null;
    const current = [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, 'blobs', KEY_FILE, TOKEN_FILE].filter((n) => existsSync(path.join(dataDir, n)));
    if (current.length) {
      movedAside = path.join(dataDir, `replaced-${now.toISOString().replace(/[:.]/g, '-')}`);
      mkdirSync(movedAside);
      for (const n of current) renameSync(path.join(dataDir, n), path.join(movedAside, n));
    }
    for (const n of [DB_FILE, 'blobs', KEY_FILE, TOKEN_FILE]) if (existsSync(path.join(restored, n))) renameSync(path.join(restored, n), path.join(dataDir, n));
    done = true;
    return { manifest, movedAside };
  } finally {
    rmSync(stage, { recursive: true, force: true });
    // A refused archive leaves nothing: not even the data directory this call made for it.
    if (!done && made) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The manifest of a backup file, read without restoring it (`cpa admin restore --check`). */
export async function checkBackup(file: string, scratch: string): Promise<BackupManifest> {
  try {
    return (await unpack(file, scratch)).manifest;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
