// The .tar.gz archives of the operator commands (`cpa admin backup`, `cpa admin workspace export`):
// written from a staging folder with a JSON manifest first, read back by extracting only the names
// the caller knows into a staging folder, each file's size and SHA-256 measured on the way and then
// checked against the manifest before anything is used (tar-stream + node:zlib).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
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

/**
 * Extracts `file` into `into`: the manifest (`manifestName`, parsed as JSON) is kept in memory,
 * every other entry must be a regular file `allowed` names (anything else refuses the archive:
 * `foreign(name)` says why), written under `into` with its size and SHA-256 measured. `skip`
 * names entries read past without writing (a README). Then every file the manifest lists is
 * checked against what was read. Returns the manifest, unchecked beyond its `files`.
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
): Promise<{ manifest: M; seen: Map<string, { bytes: number; sha256: string }> }> {
  mkdirSync(into, { recursive: true });
  const extract = tar.extract();
  let manifest: M | null = null;
  const seen = new Map<string, { bytes: number; sha256: string }>();
  extract.on('entry', (header, stream, next) => {
    const name = header.name;
    if (header.type === 'file' && opts.skip?.(name)) {
      stream.on('end', () => next());
      stream.resume();
      return;
    }
    if (header.type !== 'file' || (name !== opts.manifestName && !opts.allowed(name))) {
      stream.resume();
      next(new ArchiveError(opts.foreign(name)));
      return;
    }
    if (name === opts.manifestName) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        try {
          manifest = JSON.parse(Buffer.concat(chunks).toString('utf8')) as M;
          next();
        } catch {
          next(new ArchiveError(opts.noManifest));
        }
      });
      stream.on('error', next);
      return;
    }
    const h = createHash('sha256');
    let bytes = 0;
    stream.on('data', (c: unknown) => {
      h.update(c as Buffer);
      bytes += (c as Buffer).length;
    });
    mkdirSync(path.dirname(path.join(into, name)), { recursive: true });
    pipeline(stream, createWriteStream(path.join(into, name), { mode: 0o600 })).then(() => {
      seen.set(name, { bytes, sha256: h.digest('hex') });
      next();
    }, next);
  });
  await pipeline(createReadStream(file), createGunzip(), extract).catch((err: unknown) => {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(opts.notReadable(err as Error));
  });
  const m = manifest as M | null;
  if (!m || !Array.isArray(m.files)) throw new ArchiveError(opts.noManifest);
  return { manifest: m, seen };
}

/** For `.catch()`: an ArchiveError becomes the caller's own error class (its command maps that to an exit code). */
export const rethrowAs =
  (Cls: new (message: string) => Error) =>
  (err: unknown): never => {
    if (err instanceof ArchiveError && !(err instanceof Cls)) throw new Cls((err as Error).message);
    throw err;
  };

/** Refuses an archive whose files differ from its manifest (missing, another size or hash). */
export function checkFiles(file: string, files: ArchiveFile[], seen: Map<string, { bytes: number; sha256: string }>): void {
  for (const f of files) {
    const got = seen.get(f.path);
    if (!got || got.bytes !== f.bytes || got.sha256 !== f.sha256)
      throw new ArchiveError(`${file} is damaged: ${f.path} is missing or differs from its manifest entry.`);
  }
}
