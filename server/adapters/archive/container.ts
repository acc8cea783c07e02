// The container around an export, as people download it: a ZIP (X, LinkedIn, Mastodon), a
// tar.gz or tar (Mastodon), a gzip of one file, or the bare file. The bytes come from a
// `ByteSource` (a stored upload, read by range), so nothing is ever held whole in memory and
// nothing is ever unpacked to disk: only the data files an importer needs are inflated, as
// streams. Decompression bombs are refused before and while inflating (entry count, declared and
// actual sizes, compression ratio).
import { PassThrough, Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { ArchiveError } from './errors.js';

/** Random access to stored bytes. `read(start, end)` streams [start, end). */
export interface ByteSource {
  size: number;
  read(start: number, end: number): Readable;
}

/** Bytes in memory (a small export sent as `auth_material`, tests), read in 64 KiB chunks like a file. */
export function bufferSource(buf: Buffer): ByteSource {
  return {
    size: buf.length,
    read(start, end) {
      const chunks: Buffer[] = [];
      for (let at = start; at < end; at += 65_536) chunks.push(buf.subarray(at, Math.min(end, at + 65_536)));
      return Readable.from(chunks);
    },
  };
}

export interface ArchiveLimits {
  /** Most entries a ZIP or tar may list. */
  maxEntries: number;
  /** Most bytes one data file may inflate to. */
  maxEntryBytes: number;
  /** Most bytes all entries may inflate to (declared in a ZIP; counted while reading a tar.gz). */
  maxTotalBytes: number;
  /** Highest inflated/compressed ratio of an entry (or a whole tar.gz) past `ratioFloor` bytes. */
  maxRatio: number;
  /** Below this many inflated bytes the ratio is not checked (small files compress well). */
  ratioFloor: number;
}

export const DEFAULT_LIMITS: ArchiveLimits = {
  maxEntries: 500_000,
  maxEntryBytes: 4 * 1024 ** 3,
  maxTotalBytes: 64 * 1024 ** 3,
  maxRatio: 200,
  ratioFloor: 8 * 1024 ** 2,
};

export type ContainerKind = 'zip' | 'tar.gz' | 'tar' | 'gzip' | 'file';

export interface EntryInfo {
  name: string;
  /** Inflated size as declared (ZIP) or counted (tar); null for a gzip of one file. */
  size: number | null;
}

export interface OpenedArchive {
  container: ContainerKind;
  /** Every file the container lists (directories left out), in the container's order. */
  entries: EntryInfo[];
  /** Inflates one listed entry, as a stream; the limits are enforced as it flows. */
  open(name: string): Readable;
  close(): void;
}

const head = (src: ByteSource, n: number) => readAll(src.read(0, Math.min(n, src.size)));

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

const isTarHeader = (b: Buffer) => b.length >= 262 && b.toString('latin1', 257, 262) === 'ustar';

/** Opens what was uploaded; `ArchiveError` (422) when it is a ZIP or tar that cannot be read. */
export async function openArchive(src: ByteSource, limits: ArchiveLimits = DEFAULT_LIMITS): Promise<OpenedArchive> {
  if (src.size === 0) throw new ArchiveError('empty', 'The upload is empty.');
  const first = await head(src, 512);
  if (first[0] === 0x50 && first[1] === 0x4b && (first[2] === 3 || first[2] === 5) && (first[3] === 4 || first[3] === 6)) return openZip(src, limits);
  if (first[0] === 0x1f && first[1] === 0x8b) {
    const inner = await gunzipHead(src, 512);
    if (isTarHeader(inner)) return openTar(src, true, limits);
    return single(src, 'gzip', limits);
  }
  if (isTarHeader(first)) return openTar(src, false, limits);
  return single(src, 'file', limits);
}

async function gunzipHead(src: ByteSource, n: number): Promise<Buffer> {
  const gunzip = createGunzip();
  const input = src.read(0, src.size);
  input.pipe(gunzip);
  const parts: Buffer[] = [];
  let got = 0;
  try {
    for await (const c of gunzip) {
      parts.push(c as Buffer);
      got += (c as Buffer).length;
      if (got >= n) break;
    }
  } catch {
    throw new ArchiveError('corrupt', 'The upload starts like a gzip file but does not inflate: it is corrupt or truncated.');
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  return Buffer.concat(parts).subarray(0, n);
}

/** Counts inflated bytes and fails the stream past a limit (a bomb found while it inflates). */
function guard(limit: number, what: string, compressed: number | null, limits: ArchiveLimits): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen > limit) return cb(new ArchiveError('too_large', `${what} inflates to more than ${limit} bytes; refused as a possible decompression bomb.`));
      if (compressed !== null && seen > limits.ratioFloor && seen / Math.max(1, compressed) > limits.maxRatio) {
        return cb(
          new ArchiveError('too_large', `${what} inflates more than ${limits.maxRatio} times its compressed size; refused as a possible decompression bomb.`),
        );
      }
      cb(null, chunk);
    },
  });
}

/** A bare file, or a gzip of one file: one entry, named by what it holds once read. */
function single(src: ByteSource, kind: 'file' | 'gzip', limits: ArchiveLimits): OpenedArchive {
  return {
    container: kind,
    entries: [{ name: '', size: kind === 'file' ? src.size : null }],
    open() {
      const raw = src.read(0, src.size);
      if (kind === 'file') return raw;
      const out = guard(limits.maxEntryBytes, 'The gzip file', src.size, limits);
      const gunzip = createGunzip();
      raw.on('error', (e) => out.destroy(e));
      gunzip.on('error', () => out.destroy(new ArchiveError('corrupt', 'The gzip file is corrupt or truncated.')));
      return raw.pipe(gunzip).pipe(out);
    },
    close() {},
  };
}

class SourceReader extends yauzl.RandomAccessReader {
  constructor(private readonly src: ByteSource) {
    super();
  }
  override _readStreamForRange(start: number, end: number): Readable {
    return this.src.read(start, end);
  }
}

const zipError = (err: Error) =>
  err instanceof ArchiveError ? err : new ArchiveError('corrupt', `The ZIP file cannot be read (${err.message}): it is corrupt or truncated.`);

async function openZip(src: ByteSource, limits: ArchiveLimits): Promise<OpenedArchive> {
  const reader = new SourceReader(src);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromRandomAccessReader(
      reader,
      src.size,
      { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false, decodeStrings: true },
      (err, z) => (err ? reject(zipError(err)) : resolve(z!)),
    ),
  );
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    throw new ArchiveError('too_large', `The ZIP lists ${zip.entryCount} entries; at most ${limits.maxEntries} are accepted.`);
  }
  const byName = new Map<string, yauzl.Entry>();
  let total = 0;
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (e: yauzl.Entry) => {
      if (!e.fileName.endsWith('/')) {
        byName.set(e.fileName, e);
        total += e.uncompressedSize;
      }
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', (err: Error) => reject(zipError(err)));
    zip.readEntry();
  });
  if (total > limits.maxTotalBytes) {
    zip.close();
    throw new ArchiveError(
      'too_large',
      `The ZIP's files inflate to ${total} bytes; at most ${limits.maxTotalBytes} are accepted (a possible decompression bomb).`,
    );
  }
  return {
    container: 'zip',
    entries: [...byName.values()].map((e) => ({ name: e.fileName, size: e.uncompressedSize })),
    open(name) {
      const e = byName.get(name);
      if (!e) throw new Error(`no entry ${name}`);
      const what = `${name} in the ZIP`;
      if (e.uncompressedSize > limits.maxEntryBytes)
        throw new ArchiveError('too_large', `${what} inflates to ${e.uncompressedSize} bytes; at most ${limits.maxEntryBytes} are accepted.`);
      if (e.uncompressedSize > limits.ratioFloor && e.uncompressedSize / Math.max(1, e.compressedSize) > limits.maxRatio) {
        throw new ArchiveError(
          'too_large',
          `${what} inflates ${Math.round(e.uncompressedSize / Math.max(1, e.compressedSize))} times its compressed size; refused as a possible decompression bomb.`,
        );
      }
      const out = guard(Math.min(limits.maxEntryBytes, e.uncompressedSize), what, e.compressedSize, limits);
      zip.openReadStream(e, (err, stream) => {
        if (err || !stream) return out.destroy(zipError(err ?? new Error('no stream')));
        stream.on('error', (er: Error) => out.destroy(zipError(er)));
        stream.pipe(out);
      });
      return out;
    },
    close: () => zip.close(),
  };
}

/** Streams a tar (gunzipped first when `gz`), calling `onEntry` for each file; the limits hold throughout. */
async function walkTar(
  src: ByteSource,
  gz: boolean,
  limits: ArchiveLimits,
  onEntry: (name: string, size: number, stream: Readable) => Promise<'next' | 'stop'>,
): Promise<number> {
  const extract = tar.extract();
  const raw = src.read(0, src.size);
  let input: Readable = raw;
  if (gz) {
    const gunzip = createGunzip();
    raw.on('error', (e) => gunzip.destroy(e));
    input = raw.pipe(gunzip).pipe(guard(limits.maxTotalBytes, 'The tar.gz file', src.size, limits));
    gunzip.on('error', () => extract.destroy(new ArchiveError('corrupt', 'The tar.gz file is corrupt or truncated.')));
  }
  input.on('error', (e) => extract.destroy(e));
  input.pipe(extract);
  let count = 0;
  try {
    for await (const entry of extract) {
      const h = entry.header;
      if (h.type !== 'file') {
        entry.resume();
        continue;
      }
      count += 1;
      if (count > limits.maxEntries) throw new ArchiveError('too_large', `The tar lists more than ${limits.maxEntries} entries.`);
      if ((await onEntry(h.name, h.size ?? 0, entry as unknown as Readable)) === 'stop') return count;
    }
  } catch (err) {
    throw err instanceof ArchiveError
      ? err
      : new ArchiveError('corrupt', `The ${gz ? 'tar.gz' : 'tar'} file cannot be read (${(err as Error).message}): it is corrupt or truncated.`);
  } finally {
    raw.destroy();
    extract.destroy();
  }
  return count;
}

/** Reads an entry to its end (or until the tar fails under it) and throws its bytes away. */
function drain(stream: Readable): Promise<void> {
  return new Promise((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
    stream.resume();
  });
}

async function openTar(src: ByteSource, gz: boolean, limits: ArchiveLimits): Promise<OpenedArchive> {
  // A tar has no index: one pass lists it (inflating and discarding), `open` makes another.
  const entries: EntryInfo[] = [];
  await walkTar(src, gz, limits, async (name, size, stream) => {
    entries.push({ name, size });
    await drain(stream);
    return 'next';
  });
  return {
    container: gz ? 'tar.gz' : 'tar',
    entries,
    open(name) {
      const out = new PassThrough();
      walkTar(src, gz, limits, async (n, size, stream) => {
        if (n !== name) {
          await drain(stream);
          return 'next';
        }
        if (size > limits.maxEntryBytes)
          throw new ArchiveError('too_large', `${name} in the tar inflates to ${size} bytes; at most ${limits.maxEntryBytes} are accepted.`);
        stream.pipe(out);
        let ended = false;
        stream.on('end', () => (ended = true));
        await new Promise<void>((resolve, reject) => {
          out.on('finish', resolve);
          out.on('close', resolve);
          stream.on('error', reject);
          stream.on('close', () => (ended ? resolve() : reject(new ArchiveError('corrupt', 'The tar file ends inside one of its files: it is truncated.'))));
        });
        return 'stop';
      }).catch((err: unknown) => out.destroy(err as Error));
      return out;
    },
    close() {},
  };
}

/** The text of a stream, for the small side files (account.js, note-tweet.js, actor.json). */
export async function readText(stream: Readable, maxBytes: number): Promise<string> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of stream) {
    n += (c as Buffer).length;
    if (n > maxBytes) {
      stream.destroy();
      throw new ArchiveError('too_large', `A side file of the export is larger than ${maxBytes} bytes.`);
    }
    parts.push(c as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}
