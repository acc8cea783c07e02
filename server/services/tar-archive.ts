// The .tar.gz archives of the operator commands (`cpa admin backup`, `cpa admin workspace export`):
// written from a staging folder with a JSON manifest first, read back by extracting only the files
// the manifest lists into a staging folder under names of our own, each file's size and SHA-256
// measured on the way (and refused past its declared size as it inflates) and checked against the
// manifest before anything is used (tar-stream + node:zlib).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, statfsSync, statSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import tar from 'tar-stream';

export interface ArchiveFile {
  path: string;
  bytes: number;
  sha256: string;
}

export class ArchiveError extends Error {}

export const sha256File = async (file: string) => {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
};

/** Lists `names` (relative to `stage`) with their size and SHA-256, as a manifest records them. */
export async function describeFiles(stage: string, names: string[]): Promise<ArchiveFile[]> {
  const files: ArchiveFile[] = [];
  for (const name of names) files.push({ path: name, bytes: statSync(path.join(stage, name)).size, sha256: await sha256File(path.join(stage, name)) });
  return files;
}

/**
 * Writes `out` (.tar.gz, mode 0600): the in-memory entries first (the manifest, a README), then
 * each file of `files`, read from `stage`.
 */
export async function writeTarGz(out: string, opts: { stage: string; mtime: Date; head: Array<{ name: string; body: Buffer }>; files: ArchiveFile[] }) {
  const pack = tar.pack();
  const done = pipeline(pack, createGzip(), createWriteStream(out, { mode: 0o600 }));
  for (const h of opts.head) {
    await new Promise<void>((resolve, reject) => {
      pack.entry({ name: h.name, size: h.body.length, mode: 0o600, mtime: opts.mtime }, h.body, (err) => (err ? reject(err) : resolve()));
    });
  }
  for (const f of opts.files) {
    const stream = pack.entry({ name: f.path, size: f.bytes, mode: 0o600, mtime: opts.mtime });
    await pipeline(createReadStream(path.join(opts.stage, f.path)), stream);
  }
  pack.finalize();
  await done;
}

/** What an archive entry became once read: its name in the archive, its size and SHA-256 as measured, and the file under the staging folder that holds its bytes (a name of our own, never the entry's). */
export interface ArchiveEntry {
  path: string;
  bytes: number;
  sha256: string;
  staged: string;
}

/** The largest manifest read (it is parsed in memory). */
export const MAX_MANIFEST_BYTES = 64 * 1024 ** 2;
/** The largest entry read past without writing (a README). */
export const MAX_SKIPPED_BYTES = 1024 ** 2;
const SHA256 = /^[0-9a-f]{64}$/;
/** Past this many inflated bytes, an archive inflating more than BOMB_RATIO times is refused (deflate's limit is about 1032; text and databases stay under 20). */
export const BOMB_FLOOR_BYTES = 64 * 1024 ** 2;
export const BOMB_RATIO = 200;

/** Reads a stream to its end, in memory, refusing more than `limit` bytes as they inflate. */
async function collect(stream: AsyncIterable<unknown>, limit: number, tooBig: () => string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const c of stream) {
    bytes += (c as Buffer).length;
    if (bytes > limit) throw new ArchiveError(tooBig());
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The manifest's `files`, checked for shape: each a name `allowed`, once, with a size and a SHA-256. */
function listedFiles(files: unknown, allowed: (name: string) => boolean, noManifest: string): Map<string, ArchiveFile> {
  if (!Array.isArray(files)) throw new ArchiveError(noManifest);
  const listed = new Map<string, ArchiveFile>();
  for (const [i, f] of files.entries()) {
    const o = f as Partial<ArchiveFile> | null;
    if (!o || typeof o.path !== 'string' || !Number.isSafeInteger(o.bytes) || (o.bytes as number) < 0 || typeof o.sha256 !== 'string' || !SHA256.test(o.sha256))
      throw new ArchiveError(`The manifest's files[${i}] is not a file's path, bytes and sha256: not reading the archive.`);
    if (!allowed(o.path))
      throw new ArchiveError(`The manifest lists ${JSON.stringify(o.path)} (files[${i}]), which is not a name this archive can hold: not reading it.`);
    if (listed.has(o.path)) throw new ArchiveError(`The manifest lists ${JSON.stringify(o.path)} twice: not reading the archive.`);
    listed.set(o.path, o as ArchiveFile);
  }
  return listed;
}

/**
 * Reads `file` (.tar.gz) into `into`, trusting nothing in it:
 * - the manifest (`manifestName`, at most MAX_MANIFEST_BYTES, parsed as JSON) comes before every
 *   other file (a `skip` entry, a README, may come first; it is read past, at most MAX_SKIPPED_BYTES);
 * - every other entry is a regular file (no link, directory or device) whose name is one the
 *   manifest's `files` lists (and `allowed` accepts), once; anything else refuses the archive
 *   (`foreign(name)` says why for a name no archive of the kind holds);
 * - an entry's bytes are counted as they inflate and refused past the size its manifest entry
 *   declares, and the whole stream past what the manifest declares, so that a lying size or a
 *   gzip bomb stops at once instead of filling the disk;
 * - its bytes are written under `into` to a file of our own naming (`staged`): an entry's name is
 *   never a path on this host, and is looked up only among the entries read;
 * - at the end every listed file must have been read, with its size and SHA-256.
 * Every failure is an ArchiveError; on one, nothing stays under `into` (the caller removes `into`).
 */
export async function readTarGz<M extends { files: ArchiveFile[] }>(
  file: string,
  into: string,
  opts: {
    manifestName: string;
    allowed(name: string): boolean;
    skip?: (name: string) => boolean;
    foreign(name: string): string;
    notReadable(err: Error): string;
    noManifest: string;
  },
): Promise<{ manifest: M; entries: Map<string, ArchiveEntry> }> {
  // Made here, and only here (it must not exist: a link planted at its path is refused, not followed).
  mkdirSync(into, { mode: 0o700 });
  let manifest: M | null = null;
  let listed: Map<string, ArchiveFile> | null = null;
  const entries = new Map<string, ArchiveEntry>();
  // What the tar stream may inflate to: the manifest and a README, then what the manifest declares,
  // with a header and padding per entry and tar's end blocks.
  let budget = MAX_MANIFEST_BYTES + MAX_SKIPPED_BYTES + 64 * 1024;
  let inflated = 0;
  let packed = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      packed += chunk.length;
      done(null, chunk);
    },
  });
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      inflated += chunk.length;
      if (inflated > budget) done(new ArchiveError(`${file} inflates to more than its manifest declares: not reading it.`));
      // Even within what a manifest declares: what the service writes (databases, exports, images) never inflates like a bomb.
      else if (inflated > BOMB_FLOOR_BYTES && inflated > BOMB_RATIO * packed)
        done(new ArchiveError(`${file} inflates more than ${BOMB_RATIO} times its size (a gzip bomb, not an archive this service wrote): not reading it.`));
      else done(null, chunk);
    },
  });
  const extract = tar.extract();
  const feeding = pipeline(createReadStream(file), counter, createGunzip(), meter, extract);
  feeding.catch(() => {}); // awaited below
  try {
    for await (const entry of extract) {
      const { name, type, size } = entry.header;
      if (type === 'file' && opts.skip?.(name) && name !== opts.manifestName) {
        await collect(entry, MAX_SKIPPED_BYTES, () => `${name} in ${file} is larger than any this service writes: not reading the archive.`);
        continue;
      }
      if (name === opts.manifestName && type === 'file') {
        if (manifest) throw new ArchiveError(`${file} holds two ${opts.manifestName}: not reading it.`);
        const text = await collect(
          entry,
          MAX_MANIFEST_BYTES,
          () => `The ${opts.manifestName} of ${file} is larger than any this service writes: not reading it.`,
        );
        try {
          manifest = JSON.parse(text.toString('utf8')) as M;
        } catch {
          throw new ArchiveError(opts.noManifest);
        }
        if (!manifest || typeof manifest !== 'object') throw new ArchiveError(opts.noManifest);
        listed = listedFiles(manifest.files, opts.allowed, opts.noManifest);
        let declared = 0;
        for (const f of listed.values()) declared += f.bytes;
        budget += declared + listed.size * 1536;
        const fs = statfsSync(into);
        if (declared > fs.bavail * fs.bsize)
          throw new ArchiveError(`${file} declares ${declared} bytes of files; the file system of ${into} has ${fs.bavail * fs.bsize} free: not reading it.`);
        continue;
      }
      if (type !== 'file' || !opts.allowed(name)) throw new ArchiveError(opts.foreign(name));
      if (!listed) throw new ArchiveError(`${file} holds ${JSON.stringify(name)} before its ${opts.manifestName}: not an archive this service wrote.`);
      const want = listed.get(name);
      if (!want) throw new ArchiveError(`${file} holds ${JSON.stringify(name)}, which its manifest does not list: not reading it.`);
      if (entries.has(name)) throw new ArchiveError(`${file} holds ${JSON.stringify(name)} twice: not reading it.`);
      const lying = () => `${name} in ${file} is larger than its manifest says (${want.bytes} bytes): not reading the archive.`;
      if (size !== want.bytes)
        throw new ArchiveError(size > want.bytes ? lying() : `${file} is damaged: ${name} is missing or differs from its manifest entry.`);
      const staged = path.join(into, `entry-${entries.size}`);
      const h = createHash('sha256');
      let bytes = 0;
      await pipeline(
        entry,
        async function* (source: AsyncIterable<unknown>) {
          for await (const c of source as AsyncIterable<Buffer>) {
            bytes += c.length;
            if (bytes > want.bytes) throw new ArchiveError(lying());
            h.update(c);
            yield c;
          }
        },
        createWriteStream(staged, { mode: 0o600, flags: 'wx' }),
      );
      entries.set(name, { path: name, bytes, sha256: h.digest('hex'), staged });
    }
    await feeding;
  } catch (err) {
    extract.destroy();
    await feeding.catch(() => {});
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(opts.notReadable(err as Error));
  }
  if (!manifest || !listed) throw new ArchiveError(opts.noManifest);
  checkFiles(file, [...listed.values()], entries);
  return { manifest, entries };
}

/** For `.catch()`: an ArchiveError becomes the caller's own error class (its command maps that to an exit code). */
export const rethrowAs =
  (Cls: new (message: string) => Error) =>
  (err: unknown): never => {
    if (err instanceof ArchiveError && !(err instanceof Cls)) throw new Cls((err as Error).message);
    throw err;
  };

/** Refuses an archive whose files differ from its manifest (missing, another size or hash). */
function checkFiles(file: string, files: ArchiveFile[], seen: Map<string, { bytes: number; sha256: string }>): void {
  for (const f of files) {
    const got = seen.get(f.path);
    if (!got || got.bytes !== f.bytes || got.sha256 !== f.sha256)
      throw new ArchiveError(`${file} is damaged: ${f.path} is missing or differs from its manifest entry.`);
  }
}
