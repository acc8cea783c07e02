// Moving a workspace between instances: `cpa admin workspace export` writes every row of one
// workspace (server/store/workspace-archive.ts says which tables and how) as JSON Lines, the blobs
// its rows name as files, a README and a manifest (each file's size and SHA-256) into one .tar.gz;
// `cpa admin workspace import` loads it into another instance, on either database, keeping every
// id. The format is docs/operations.md, "Move a workspace", and the README inside the archive.
//
// Secrets: an account's credentials and proxy stay behind unless asked (`--with-secrets`), and are
// then carried encrypted with a key derived from a passphrase (scrypt, AES-256-GCM); an account
// that comes without them is imported `dead`, so that diagnose and the inbox say to connect it again.
import { randomBytes, scrypt as scryptCb } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { Config } from '../config.js';
import { randomIds, type IdSource } from '../lib/clock.js';
import { isRepresentable } from '../lib/instants.js';
import { blobStore } from '../store/blobs.js';
import { isUniqueViolation, type Db, type Provider } from '../store/database.js';
import {
  columnKinds,
  existingIds,
  exportedTables,
  insertRows,
  readSnapshot,
  transaction,
  workspaceExists,
  workspaceIds,
  workspaceRows,
  WORKSPACE_REFERENCES,
  WORKSPACE_TABLES,
  type ColumnKind,
  type Exported,
} from '../store/workspace-archive.js';
import type { DB } from '../store/tables.js';

type Table = keyof DB;
import { accountAad } from './accounts.js';
import { createCipher, credentialCipher, type Cipher } from './crypto.js';
import { ArchiveError, describeFiles, readTarGz, rethrowAs, writeTarGz, type ArchiveEntry } from './tar-archive.js';
import { issueToken } from './tokens.js';
import { operatorActor, recordAudit } from './audit.js';

export const WORKSPACE_FORMAT = 'content-pipeline-workspace';
export const WORKSPACE_VERSION = 1;
const MANIFEST = 'manifest.json';
const README = 'README.md';
const BLOB_NAME = /^[A-Za-z0-9_-]+$/;
const TABLE_FILE = /^tables\/([A-Za-z]+)\.jsonl$/;
/** scrypt's cost: 2^15 × 8 × 128 bytes = 32 MiB of memory, about 0.1 s (OWASP's minimum is 2^17 for passwords stored; this is one key per archive). */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1 };
const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

export class MoveError extends ArchiveError {}

export interface WorkspaceManifest {
  format: typeof WORKSPACE_FORMAT;
  version: number;
  created_at: string;
  workspace_id: string;
  workspace_name: string;
  source_database: Provider;
  /** Per table (in the order they are loaded): its file, how many rows, its columns. */
  tables: Array<{ table: string; file: string; rows: number; columns: string[] }>;
  /** The blobs the rows name (imports' uploaded exports, images), by the row that names them. */
  media: Array<{ path: string; blob_id: string; table: string; row_id: string }>;
  /** Events older than this are not in the archive. */
  events_since: string;
  /** Accounts whose credentials (and proxy) were left out: they come in `dead`, to be connected again. */
  withheld_accounts: string[];
  /** null: no secrets (accounts' `credentials` and `proxyUrl` are null). Otherwise how to derive the key that opens them. */
  secrets: null | { kdf: 'scrypt'; N: number; r: number; p: number; salt: string; cipher: 'aes-256-gcm'; check: string };
  files: Array<{ path: string; bytes: number; sha256: string }>;
}

export interface Instance {
  db: Db;
  provider: Provider;
  config: Config;
}

/** Platforms whose stored credentials are no access secret (an archive's format or text, a feed's nothing): carried as they are when the account has no proxy. */
const NOT_SECRET = new Set(['archive', 'rss']);
const secretsAad = (accountId: string, part: 'credentials' | 'proxy') => `workspace-archive|${accountId}|${part}`;
const CHECK = 'content-pipeline workspace archive';

async function passphraseCipher(passphrase: string, salt: Buffer): Promise<Cipher> {
  return createCipher(await scrypt(passphrase, salt, 32, { ...SCRYPT, maxmem: 64 * 1024 * 1024 }));
}

/** A value as the archive holds it: dates as ISO text, booleans as JSON booleans, bytes as base64. */
function toJson(v: unknown, kind: ColumnKind | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (kind === 'date') return (v instanceof Date ? v : new Date(v as string)).toISOString();
  if (kind === 'boolean') return v === true || v === 1 || v === '1';
  if (kind === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  return typeof v === 'bigint' ? Number(v) : v;
}

function fromJson(v: unknown, kind: ColumnKind | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (kind === 'date') return new Date(v as string);
  if (kind === 'boolean') return v === true;
  if (kind === 'bytes') return Buffer.from(v as string, 'base64');
  return v;
}

const readme = (m: Omit<WorkspaceManifest, 'files'>) => `# Content Pipeline workspace archive

Workspace \`${m.workspace_id}\` (${JSON.stringify(m.workspace_name)}), exported ${m.created_at} from a ${m.source_database === 'sqlite' ? 'SQLite (desktop)' : 'PostgreSQL'} instance.
Format \`${WORKSPACE_FORMAT}\`, version ${WORKSPACE_VERSION}. Load it into an instance with \`cpa admin workspace import FILE\`,
or read it as it is: everything is JSON text and plain files.

- \`manifest.json\`: the format and version, the workspace, per table its file, row count and
  columns, the media files and the row naming each, and every file's size and SHA-256.
- \`tables/<Table>.jsonl\`: one JSON object per line, one line per row, every column by its name
  in the service's schema; ids as the service gave them (agents' references still resolve),
  times as ISO 8601 UTC text, columns holding JSON (\`media\`, \`parts\`, \`input\`, \`summary\`,
  \`data\`, ...) as that JSON's text. The tables:
${m.tables.map((t) => `  - \`${t.file}\`: ${t.rows} rows`).join('\n')}
  (\`SourcePost\`: the imported and ingested posts; \`Artifact\`: the drafts, with their genealogy in
  \`parentArtifactId\`, \`rootArtifactId\`, \`ancestors\`; \`ArtifactVariant\`: their per-platform texts;
  \`PublishedPart\`: the posts a publish made; \`Run\`: the work done and to do, a \`queued\` publish run
  with \`runAfter\` is a schedule; \`Event\`: the events since ${m.events_since}; \`AuditEvent\`: the whole
  record of who did what, each change with its actor and time.)
- \`media/<blob id>\`: the bytes of each uploaded export (\`Import.blobId\`) and image
  (\`MediaUpload.blobId\`), as uploaded (images as stored after re-encoding).
- Accounts: ${
  m.secrets
    ? 'credentials and proxy are encrypted with a key derived from the passphrase given at export (scrypt, then AES-256-GCM; see manifest.json `secrets` and docs/operations.md).'
    : 'the credentials and proxy of the accounts listed in manifest.json `withheld_accounts` are not in this archive (`null`): connect them again after importing. Archive and feed accounts without a proxy hold no secret: their `credentials` are there as JSON text.'
}
  Agent tokens are not in the archive: importing it issues the workspace a new token, printed once.

Not in the archive: idempotency records, rate-limit windows, webhook deliveries, instance settings.
`;

/** Lines of a JSON Lines file, parsed, with their line numbers; a line that is no JSON object refuses the archive. */
async function* jsonLines(file: string, name: string): AsyncGenerator<[Record<string, unknown>, number]> {
  const rl = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    n++;
    if (!line) continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      row = null;
    }
    if (!row || typeof row !== 'object' || Array.isArray(row)) throw new MoveError(`${name} line ${n} is not a JSON object: nothing imported.`);
    yield [row as Record<string, unknown>, n];
  }
}

/** Writes the workspace to `file` (.tar.gz). `workspaceId` defaults to the only workspace. */
export async function exportWorkspace(
  src: Instance,
  file: string,
  opts: { workspaceId?: string; passphrase?: string; clock?: () => Date } = {},
): Promise<WorkspaceManifest> {
  const now = (opts.clock ?? (() => new Date()))();
  const stage = `${file}.staging-${process.pid}`;
  const tmp = `${file}.tmp-${process.pid}`;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(path.join(stage, 'tables'), { recursive: true });
  mkdirSync(path.join(stage, 'media'), { recursive: true });
  try {
    const secrets = opts.passphrase === undefined ? null : { salt: randomBytes(16) };
    const sealer = secrets ? await passphraseCipher(opts.passphrase!, secrets.salt) : null;
    const m = await readSnapshot(src.db, src.provider, async (tx) => {
      let workspaceId = opts.workspaceId;
      if (!workspaceId) {
        const ids = await workspaceIds(tx);
        if (ids.length !== 1) throw new MoveError(`This instance has ${ids.length} workspaces: name one with --workspace (${ids.slice(0, 5).join(', ')}).`);
        workspaceId = ids[0]!;
      } else if (!(await workspaceExists(tx, workspaceId))) throw new MoveError(`No workspace ${workspaceId} on this instance.`);
      const tables: WorkspaceManifest['tables'] = [];
      const media: WorkspaceManifest['media'] = [];
      const withheld: string[] = [];
      let name = '';
      const source = credentialCipher(src.config);
      for (const [table, spec] of exportedTables()) {
        const kinds = await columnKinds(tx, src.provider, table);
        const columns = [...kinds.keys()].filter((c) => !spec.omit?.includes(c));
        const out = createWriteStream(path.join(stage, 'tables', `${table}.jsonl`), { mode: 0o600 });
        let rows = 0;
        for await (const page of workspaceRows(tx, table, spec, workspaceId, now)) {
          let text = '';
          for (const row of page) {
            const o: Record<string, unknown> = {};
            for (const c of columns) o[c] = toJson(row[c], kinds.get(c));
            if (table === 'Workspace') name = row.name as string;
            if (table === 'Account') {
              const a = row as { id: string; workspaceId: string; platform: string; handle: string; credentials: string; proxyUrl: string | null };
              const plain = source.decrypt(a.credentials, accountAad(a, 'credentials'));
              if (sealer) {
                o.credentials = sealer.encrypt(plain, secretsAad(a.id, 'credentials'));
                o.proxyUrl = a.proxyUrl === null ? null : sealer.encrypt(source.decrypt(a.proxyUrl, accountAad(a, 'proxy')), secretsAad(a.id, 'proxy'));
              } else if (NOT_SECRET.has(a.platform) && a.proxyUrl === null) {
                o.credentials = plain;
              } else {
                o.credentials = null;
                o.proxyUrl = null;
                withheld.push(a.id);
              }
            }
            if ((table === 'Import' || table === 'MediaUpload') && typeof row.blobId === 'string')
              media.push({ path: `media/${row.blobId}`, blob_id: row.blobId, table, row_id: row.id as string });
            text += `${JSON.stringify(o)}\n`;
            rows++;
          }
          if (!out.write(text)) await once(out, 'drain');
        }
        out.end();
        await once(out, 'finish');
        tables.push({ table, file: `tables/${table}.jsonl`, rows, columns });
      }
      const blobs = blobStore(tx, src.provider, src.config.dataDir);
      for (const b of media) {
        if (!BLOB_NAME.test(b.blob_id)) throw new MoveError(`${b.table} ${b.row_id} names a blob id the archive cannot hold: ${b.blob_id}`);
        await pipeline(blobs.read(b.blob_id, 0, Number.MAX_SAFE_INTEGER), createWriteStream(path.join(stage, b.path), { mode: 0o600 })).catch(
          (err: unknown) => {
            throw new MoveError(
              `The bytes of ${b.table} ${b.row_id} (blob ${b.blob_id}) cannot be read: ${(err as Error).message}. Was it deleted meanwhile? Try again.`,
            );
          },
        );
      }
      const head: Omit<WorkspaceManifest, 'files'> = {
        format: WORKSPACE_FORMAT,
        version: WORKSPACE_VERSION,
        created_at: now.toISOString(),
        workspace_id: workspaceId,
        workspace_name: name,
        source_database: src.provider,
        tables,
        media,
        events_since: new Date(now.getTime() - 7 * 86_400_000).toISOString(),
        withheld_accounts: withheld,
        secrets:
          secrets && sealer
            ? {
                kdf: 'scrypt',
                ...SCRYPT,
                salt: secrets.salt.toString('base64'),
                cipher: 'aes-256-gcm',
                check: sealer.encrypt(CHECK, 'workspace-archive|check'),
              }
            : null,
      };
      return head;
    });
    const files = await describeFiles(stage, [...m.tables.map((t) => t.file), ...m.media.map((b) => b.path)]);
    const manifest: WorkspaceManifest = { ...m, files };
    await writeTarGz(tmp, {
      stage,
      mtime: now,
      head: [
        { name: README, body: Buffer.from(readme(m)) },
        { name: MANIFEST, body: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) },
      ],
      files,
    });
    renameSync(tmp, file);
    return manifest;
  } finally {
    rmSync(stage, { recursive: true, force: true });
    rmSync(tmp, { force: true });
  }
}

interface Unpacked {
  manifest: WorkspaceManifest;
  /** The archive's entries by name, each read into the staging folder under a name of our own. */
  entries: Map<string, ArchiveEntry>;
}

/** Tables an archive may carry that are not imported: an earlier export's agent tokens (the import issues its own). */
const NOT_IMPORTED = new Set(['AgentToken']);

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * Reads and checks an archive into `stage`: the manifest, every file against it (readTarGz), and
 * that every name the manifest gives is an entry of the archive it lists: a table's file is
 * `tables/<Table>.jsonl`, a medium's `media/<blob id>`, looked up among the entries read, never
 * on this host's file system.
 */
async function unpack(file: string, stage: string): Promise<Unpacked> {
  rmSync(stage, { recursive: true, force: true });
  const { manifest: m, entries } = await readTarGz<WorkspaceManifest>(file, stage, {
    manifestName: MANIFEST,
    allowed: (name) => TABLE_FILE.test(name) || (name.startsWith('media/') && BLOB_NAME.test(name.slice(6))),
    skip: (name) => name === README,
    foreign: (name) => `The archive holds ${JSON.stringify(name)}, which no workspace archive of this service has: not importing it.`,
    notReadable: (err) => `${file} is not a readable workspace archive (.tar.gz): ${err.message}`,
    noManifest: `The archive has no readable ${MANIFEST}: not a workspace archive of this service.`,
  }).catch(rethrowAs(MoveError));
  if ((m.format as string) !== WORKSPACE_FORMAT)
    throw new MoveError(`${file} is not a workspace archive of this service (its ${MANIFEST} has no format ${WORKSPACE_FORMAT}).`);
  if (m.version !== WORKSPACE_VERSION)
    throw new MoveError(`${file} is a version ${m.version} workspace archive; this service reads version ${WORKSPACE_VERSION}.`);
  const bad = (what: string) => new MoveError(`The ${MANIFEST} of ${file} ${what}: nothing imported.`);
  if (typeof m.workspace_id !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(m.workspace_id)) throw bad('has no workspace_id of the form ws_…');
  if (!isStrings(m.withheld_accounts)) throw bad('has no withheld_accounts list');
  if (!Array.isArray(m.tables) || !Array.isArray(m.media)) throw bad('has no tables or media list');
  const named = new Set<string>();
  const tables = new Set<string>();
  for (const [i, t] of m.tables.entries()) {
    if (!t || typeof t.table !== 'string' || !isStrings(t.columns)) throw bad(`tables[${i}] is not a table with columns`);
    if (tables.has(t.table)) throw bad(`lists table ${t.table} twice`);
    tables.add(t.table);
    if (t.file !== `tables/${t.table}.jsonl`) throw bad(`names the file of table ${t.table} ${JSON.stringify(t.file)}, not tables/${t.table}.jsonl`);
    if (!entries.has(t.file)) throw bad(`names ${t.file}, which is not in the archive`);
    named.add(t.file);
  }
  const blobs = new Set<string>();
  for (const [i, b] of m.media.entries()) {
    if (!b || typeof b.blob_id !== 'string' || !BLOB_NAME.test(b.blob_id) || typeof b.table !== 'string' || typeof b.row_id !== 'string')
      throw bad(`media[${i}] is not a blob id with the row naming it`);
    if (b.path !== `media/${b.blob_id}`) throw bad(`names the file of blob ${b.blob_id} ${JSON.stringify(b.path)}, not media/${b.blob_id}`);
    if (!entries.has(b.path)) throw bad(`names ${b.path}, which is not in the archive`);
    if (blobs.has(b.blob_id)) throw bad(`lists blob ${b.blob_id} twice`);
    blobs.add(b.blob_id);
    named.add(b.path);
  }
  for (const name of entries.keys()) if (!named.has(name)) throw bad(`lists ${name}, which no table or medium of it names`);
  return { manifest: m, entries };
}

/** The manifest of an archive, checked, without importing it. */
export async function checkWorkspaceArchive(file: string, scratch: string): Promise<WorkspaceManifest> {
  try {
    return (await unpack(file, scratch)).manifest;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const ROWS_PER_BATCH = 1000;

/** How a row is named in a refusal: its id, or its key's values. */
function rowName(table: string, row: Record<string, unknown>): string {
  if (typeof row.id === 'string') return `${table} ${row.id}`;
  const spec = WORKSPACE_TABLES[table as never] as Exported | undefined;
  return `${table} ${(spec?.key ?? []).map((k) => JSON.stringify(row[k] ?? null)).join('/')}`;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function valueFits(v: unknown, kind: ColumnKind | undefined): boolean {
  if (v === null || v === undefined) return true;
  // As the export writes them: ISO 8601 UTC with milliseconds, years 0001 to 9999 (a value no response could carry is refused here).
  if (kind === 'date') return typeof v === 'string' && ISO_INSTANT.test(v) && isRepresentable(Date.parse(v)) && new Date(v).toISOString() === v;
  if (kind === 'boolean') return typeof v === 'boolean';
  if (kind === 'bytes') return typeof v === 'string';
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/**
 * Every row of the archive must belong to the workspace it imports, before anything is written:
 * - its `workspaceId` is the manifest's `workspace_id` (the Workspace table: one row, that id);
 * - each value is of its column's kind;
 * - an import's or image's blob is one the archive carries, named for that row;
 * - every reference (WORKSPACE_REFERENCES: columns, and ids inside JSON columns) names a row of
 *   the archive, or no row of this instance: one naming a row of another workspace here refuses it.
 * A refusal names the table, the row and the column.
 */
async function checkRows(dst: Instance, u: Unpacked, kinds: Map<string, Map<string, ColumnKind>>): Promise<void> {
  const m = u.manifest;
  const refuse = (what: string) => new MoveError(`${what}: the archive is not one workspace's own, nothing imported.`);
  const ids = new Map<string, Set<string>>();
  const blobs = new Map(m.media.map((b) => [b.blob_id, b]));
  const claimed = new Set<string>();
  let workspaces = 0;
  for (const t of m.tables) {
    // A table not imported (an earlier export's tokens) is checked all the same: a row of it naming another workspace refuses the archive.
    const k = kinds.get(t.table)!;
    for (const c of ['id', 'workspaceId']) if (k.has(c) && !t.columns.includes(c)) throw refuse(`The archive's ${t.table} has no ${c} column`);
    const seen = new Set<string>();
    ids.set(t.table, seen);
    for await (const [row, n] of jsonLines(u.entries.get(t.file)!.staged, t.file)) {
      const name = k.has('id') && typeof row.id === 'string' ? rowName(t.table, row) : `${t.table} (line ${n} of ${t.file})`;
      for (const c of t.columns)
        if (!valueFits(row[c], k.get(c))) throw refuse(`${name}: its ${c} is not a ${k.get(c) === 'other' ? 'text or number' : k.get(c)} value`);
      if (k.has('id')) {
        if (typeof row.id !== 'string' || !row.id) throw refuse(`${name} has no id`);
        seen.add(row.id);
      }
      if (t.table === 'Workspace') {
        workspaces++;
        if (row.id !== m.workspace_id) throw refuse(`${name} is not the workspace the manifest names (${m.workspace_id})`);
      } else if (k.has('workspaceId') && row.workspaceId !== m.workspace_id)
        throw refuse(`${name}: its workspaceId ${JSON.stringify(row.workspaceId ?? null)} is not the archive's workspace ${m.workspace_id}`);
      if ((t.table === 'Import' || t.table === 'MediaUpload') && row.blobId !== null && row.blobId !== undefined) {
        const b = blobs.get(row.blobId as string);
        if (!b || b.table !== t.table || b.row_id !== row.id)
          throw refuse(`${name}: its blobId ${JSON.stringify(row.blobId)} is not a medium the archive carries for it`);
        claimed.add(b.blob_id);
      }
    }
  }
  if (workspaces !== 1) throw refuse(`The archive holds ${workspaces} Workspace rows, not one`);
  for (const b of m.media) if (!claimed.has(b.blob_id)) throw refuse(`media/${b.blob_id} is named by no row of the archive (${b.table} ${b.row_id})`);

  // References: to the archive's own rows, or else to no row of this instance.
  const outside = new Map<Table, Map<string, string>>();
  for (const t of m.tables) {
    const refs = WORKSPACE_REFERENCES[t.table as Table];
    if (!refs) continue;
    for await (const [row] of jsonLines(u.entries.get(t.file)!.staged, t.file)) {
      for (const r of refs) {
        if (!t.columns.includes(r.column)) continue;
        let values: unknown[] = [row[r.column]];
        if (r.ids) {
          if (typeof row[r.column] !== 'string') continue;
          try {
            values = r.ids(JSON.parse(row[r.column] as string));
          } catch {
            throw refuse(`${rowName(t.table, row)}: its ${r.column} is not JSON`);
          }
        }
        for (const v of values) {
          if (v === null || v === undefined) continue;
          const where = `${rowName(t.table, row)}: its ${r.column} names ${r.table} ${JSON.stringify(v)}`;
          if (typeof v !== 'string') throw refuse(`${where}, which is no id`);
          if (r.manual && v.startsWith('manual:')) continue;
          if (ids.get(r.table)?.has(v)) continue;
          // A session is named within its workspace: one the archive lacks names nothing elsewhere.
          if (r.table === 'Session') continue;
          let of = outside.get(r.table);
          if (!of) outside.set(r.table, (of = new Map<string, string>()));
          if (!of.has(v)) of.set(v, where);
        }
      }
    }
  }
  for (const [table, of] of outside) {
    const found = await existingIds(dst.db, table, [...of.keys()]);
    if (found.length) throw refuse(`${of.get(found[0]!)}, a row outside the archive (of another workspace on this instance)`);
  }
}

/**
 * Loads an archive into `dst`: checks every row belongs to the archive's workspace (checkRows),
 * then writes the blobs, then every row in one transaction (the blobs are removed when it fails),
 * and issues the workspace a new agent token (an archive's tokens are never imported). A workspace
 * id the instance has already is refused before anything is written: importing the same archive
 * twice never makes a duplicate.
 */
export async function importWorkspace(
  dst: Instance,
  file: string,
  opts: { passphrase?: string; scratch: string; clock?: () => Date; ids?: IdSource },
): Promise<{ manifest: WorkspaceManifest; accountsToReconnect: number; token: string }> {
  const stage = opts.scratch;
  rmSync(stage, { recursive: true, force: true });
  const now = (opts.clock ?? (() => new Date()))();
  try {
    const u = await unpack(file, stage);
    const m = u.manifest;
    if (await workspaceExists(dst.db, m.workspace_id))
      throw new MoveError(`Workspace ${m.workspace_id} exists on this instance already (imported before?): nothing imported.`);
    let opener: Cipher | null = null;
    if (m.secrets && opts.passphrase !== undefined) {
      try {
        opener = await passphraseCipher(opts.passphrase, Buffer.from(m.secrets.salt, 'base64'));
        opener.decrypt(m.secrets.check, 'workspace-archive|check');
      } catch {
        throw new MoveError('The passphrase does not open this archive’s secrets: nothing imported.');
      }
    } else if (m.secrets) throw new MoveError('This archive carries encrypted account credentials: give its passphrase with --passphrase-file.');
    // Every table and column must be one this version knows (a newer archive is refused, not half-read).
    const kinds = new Map<string, Map<string, ColumnKind>>();
    const known = new Map(exportedTables());
    for (const t of m.tables) {
      if (!known.has(t.table as never) && !NOT_IMPORTED.has(t.table)) {
        const scope = Object.hasOwn(WORKSPACE_TABLES, t.table) ? WORKSPACE_TABLES[t.table as Table] : null;
        if (scope && 'leftOut' in scope)
          throw new MoveError(`The archive has a table ${t.table}, which no workspace archive carries (${scope.leftOut}): nothing imported.`);
        throw new MoveError(`The archive has a table ${t.table} that this version of the service does not know: upgrade it first.`);
      }
      const k = await columnKinds(dst.db, dst.provider, t.table as never);
      const unknown = t.columns.filter((c) => !k.has(c));
      if (unknown.length) throw new MoveError(`The archive's ${t.table} has columns this version does not know (${unknown.join(', ')}): upgrade it first.`);
      kinds.set(t.table, k);
    }
    await checkRows(dst, u, kinds);
    const target = credentialCipher(dst.config);
    const blobs = blobStore(dst.db, dst.provider, dst.config.dataDir);
    const written: string[] = [];
    let reconnect = 0;
    let token = '';
    try {
      for (const b of m.media) {
        written.push(b.blob_id);
        try {
          // A sink that fails removes what it wrote before it closes (store/blobs.ts).
          await pipeline(createReadStream(u.entries.get(b.path)!.staged), blobs.create(b.blob_id));
        } catch (err) {
          written.pop();
          // Another blob of that id is there: it is not ours to remove.
          if ((err as NodeJS.ErrnoException).code === 'EEXIST' || isUniqueViolation(err))
            throw new MoveError(`Blob ${b.blob_id} exists on this instance already (imported before?): nothing imported.`);
          throw err;
        }
      }
      await transaction(dst.db, async (tx) => {
        for (const t of m.tables) {
          if (NOT_IMPORTED.has(t.table)) continue;
          const k = kinds.get(t.table)!;
          let batch: Array<Record<string, unknown>> = [];
          for await (const [line] of jsonLines(u.entries.get(t.file)!.staged, t.file)) {
            const row: Record<string, unknown> = {};
            for (const c of t.columns) row[c] = fromJson(line[c], k.get(c));
            if (t.table === 'Account') {
              const a = row as { id: string; workspaceId: string; platform: string; handle: string };
              if (opener) {
                row.credentials = target.encrypt(opener.decrypt(line.credentials as string, secretsAad(a.id, 'credentials')), accountAad(a, 'credentials'));
                row.proxyUrl =
                  typeof line.proxyUrl === 'string' ? target.encrypt(opener.decrypt(line.proxyUrl, secretsAad(a.id, 'proxy')), accountAad(a, 'proxy')) : null;
              } else if (typeof line.credentials === 'string' && !m.withheld_accounts.includes(a.id)) {
                row.credentials = target.encrypt(line.credentials, accountAad(a, 'credentials'));
              } else {
                reconnect++;
                row.credentials = target.encrypt(JSON.stringify({ secret: '', secondary: null }), accountAad(a, 'credentials'));
                row.proxyUrl = null;
                row.status = 'dead';
                row.lastProbeError = 'moved from another instance without its credentials: connect the account again';
                row.lastProbedAt = now;
              }
            }
            batch.push(row);
            if (batch.length >= ROWS_PER_BATCH) {
              await insertRows(tx, dst.provider, t.table as never, batch);
              batch = [];
            }
          }
          await insertRows(tx, dst.provider, t.table as never, batch);
        }
        const issued = await issueToken({ db: tx, ids: opts.ids ?? randomIds }, m.workspace_id);
        token = issued.token;
        // After the archive's own record (AuditEvent rows, carried as they were): the import itself.
        await recordAudit(
          tx,
          { clock: { now: () => now }, ids: opts.ids ?? randomIds },
          {
            workspaceId: m.workspace_id,
            actor: operatorActor(),
            action: 'workspace.imported',
            subject: { type: 'workspace', id: m.workspace_id },
            summary: `Imported the workspace from an archive made ${m.created_at} on a ${m.source_database} instance, with a new default token`,
            detail: { archive_created_at: m.created_at, source_database: m.source_database, token_id: issued.id },
          },
        );
      });
    } catch (err) {
      for (const id of written) await blobs.remove(id).catch(() => {});
      if (err instanceof ArchiveError) throw err;
      if (isUniqueViolation(err))
        throw new MoveError(`A row of the archive has an id or key this instance holds already: nothing imported (${(err as Error).message}).`);
      throw new MoveError(`A row of the archive cannot be written: nothing imported (${(err as Error).message}).`);
    }
    return { manifest: m, accountsToReconnect: reconnect, token };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
