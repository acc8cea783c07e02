// The container around an export, as people download it: a ZIP (X, LinkedIn, Mastodon), a
// tar.gz or tar (Mastodon), a gzip of one file, or the bare file. The bytes come from a
// `ByteSource` (a stored upload, read by range), so nothing is ever held whole in memory and
// nothing is ever unpacked to disk: only the data files an importer needs are inflated, as
// streams. Decompression bombs are refused before and while inflating (entry count, entries that
// share bytes, declared and actual sizes, the ratio of each entry as it inflates); every bound is
// in DEFAULT_LIMITS (docs/ingest.md, "Bounds").
import { PassThrough, Readable, Transform } from 'node:stream';
import { createGunzip, createInflateRaw, type Zlib } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { ArchiveError, clip } from './errors.js';
import { turns } from './turns.js';

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
  /** Most entries a ZIP or tar may list (directories included). */
  maxEntries: number;
  /** Longest entry name, in characters. */
  maxNameLength: number;
  /** Most characters all entry names may add up to (what the listing keeps in memory). */
  maxNamesTotal: number;
  /** Most bytes one data file may inflate to. */
  maxEntryBytes: number;
  /** Most bytes all entries may inflate to (declared in a ZIP; counted while reading a tar.gz). */
  maxTotalBytes: number;
  /** Highest inflated/compressed ratio of an entry (or a whole tar.gz), measured as it inflates, past `ratioFloor` bytes. */
  maxRatio: number;
  /** Below this many inflated bytes the ratio is not checked (small files compress well). */
  ratioFloor: number;
  /** Most bytes a side file (X's account.js, note-tweet.js, protected-history.js) may hold. */
  maxSideFileBytes: number;
  /** Most bytes one post may take in its file: a JSON element of tweets.js / outbox.json, a record of Shares.csv. */
  maxValueBytes: number;
  /** Most post files an X archive may split its posts into (tweets.js, tweets-part1.js, …). */
  maxPostFiles: number;
  /** Most posts of an X export without account.js, whose ids are kept to infer the account from its self-replies. */
  maxInferredPosts: number;
}

export const DEFAULT_LIMITS: ArchiveLimits = {
  maxEntries: 100_000,
  maxNameLength: 1024,
  maxNamesTotal: 16 * 1024 ** 2,
  maxEntryBytes: 4 * 1024 ** 3,
  maxTotalBytes: 64 * 1024 ** 3,
  maxRatio: 200,
  ratioFloor: 1024 ** 2,
  maxSideFileBytes: 32 * 1024 ** 2,
  maxValueBytes: 4 * 1024 ** 2,
  maxPostFiles: 200,
  maxInferredPosts: 1_000_000,
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

/**
 * The compressed bytes an inflater has consumed so far: zlib's `bytesWritten` grows by what each
 * step of the engine took in, so the ratio is of this entry's bytes out to its bytes in, at
 * every 16 KiB that comes out (not of the whole upload, nor of what was read ahead).
 */
const consumedBy = (inflate: Zlib) => () => inflate.bytesWritten;

/**
 * Counts inflated bytes and fails the stream past a limit, or once the bytes out pass `maxRatio`
 * times the compressed bytes in so far (`consumed`): a bomb is found while it inflates, after at
 * most a few MiB, however large the rest of it is. `expected`: the size the ZIP declares, which
 * the entry must inflate to exactly.
 */
function guard(limit: number, what: string, consumed: (() => number) | null, limits: ArchiveLimits, expected: number | null = null): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (expected !== null && seen > expected)
        return cb(new ArchiveError('corrupt', `${what} inflates to more than the ${expected} bytes its directory declares: it is corrupt.`));
      if (seen > limit) return cb(new ArchiveError('too_large', `${what} inflates to more than ${limit} bytes; refused as a possible decompression bomb.`));
      if (consumed !== null && seen > limits.ratioFloor && seen > limits.maxRatio * Math.max(1, consumed())) {
        return cb(
          new ArchiveError('too_large', `${what} inflates more than ${limits.maxRatio} times its compressed size; refused as a possible decompression bomb.`),
        );
      }
      cb(null, chunk);
    },
    flush(cb) {
      if (expected !== null && seen !== expected)
        return cb(new ArchiveError('corrupt', `${what} inflates to ${seen} bytes, not the ${expected} its directory declares: it is corrupt.`));
      cb();
    },
  });
}

/**
 * raw → inflate → out: an error of either becomes `failure(err)` on `out`; `out` ending early
 * (the reader had enough, or the guard refused) stops the reading and the inflating.
 */
function inflateInto(raw: Readable, inflate: Transform | null, out: Transform, failure: (err: Error) => Error): void {
  const stop = () => {
    raw.destroy();
    inflate?.destroy();
  };
  out.on('close', stop);
  raw.on('error', (e) => out.destroy(failure(e)));
  if (!inflate) {
    raw.pipe(out);
    return;
  }
  inflate.on('error', (e) => out.destroy(failure(e)));
  raw.pipe(inflate).pipe(out);
}

/** A bare file, or a gzip of one file: one entry, named by what it holds once read. */
function single(src: ByteSource, kind: 'file' | 'gzip', limits: ArchiveLimits): OpenedArchive {
  return {
    container: kind,
    entries: [{ name: '', size: kind === 'file' ? src.size : null }],
    open() {
      const raw = src.read(0, src.size);
      if (kind === 'file') return raw;
      const gunzip = createGunzip();
      const out = guard(limits.maxEntryBytes, 'The gzip file', consumedBy(gunzip), limits);
      inflateInto(raw, gunzip, out, (e) => (e instanceof ArchiveError ? e : new ArchiveError('corrupt', 'The gzip file is corrupt or truncated.')));
      return out;
    },
    close() {},
  };
}

/** Reads up to this many bytes at once for yauzl's small reads (the central directory, local headers). */
const BLOCK = 256 * 1024;

/**
 * yauzl reads a ZIP's central directory 46 bytes and then a name at a time: two reads per entry,
 * each through a stream of its own (~170 µs). Small reads are served from one cached block
 * instead, copied in place, so that listing 100,000 entries takes a fraction of a second and a
 * few reads of storage, not 200,000 streams.
 */
class SourceReader extends yauzl.RandomAccessReader {
  private block: { start: number; buf: Buffer } | null = null;
  constructor(private readonly src: ByteSource) {
    super();
  }
  override _readStreamForRange(start: number, end: number): Readable {
    return this.src.read(start, end);
  }
  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
    if (length > BLOCK / 4) return super.read(buffer, offset, length, position, callback);
    const copy = (b: { start: number; buf: Buffer }) => {
      const got = b.buf.copy(buffer, offset, position - b.start, position - b.start + length);
      callback(got === length ? null : new Error('unexpected EOF'));
    };
    const b = this.block;
    // process.nextTick: yauzl must not be called back in the same stack (listing would recurse).
    if (b && position >= b.start && position + length <= b.start + b.buf.length) return process.nextTick(copy, b);
    readAll(this.src.read(position, Math.min(this.src.size, position + BLOCK))).then(
      (buf) => {
        this.block = { start: position, buf };
        copy(this.block);
      },
      (err: unknown) => callback(err as Error),
    );
  }
}

const zipError = (err: Error) =>
  err instanceof ArchiveError ? err : new ArchiveError('corrupt', `The ZIP file cannot be read (${err.message}): it is corrupt or truncated.`);

/** What the listing keeps of a ZIP entry (not yauzl's whole Entry: 100,000 of those weigh hundreds of MB). */
interface ZipRecord {
  name: string;
  offset: number;
  compressedSize: number;
  uncompressedSize: number;
  method: number;
  encrypted: boolean;
  /** Where the next local header (or the end of the file) starts: this entry's data must end before it. */
  limit: number;
}

/** Bounds every listed name; `total` is the running sum of the lengths. */
function checkName(name: string, total: number, limits: ArchiveLimits, kind: string): number {
  if (name.length > limits.maxNameLength)
    throw new ArchiveError(
      'too_large',
      `The ${kind} holds an entry whose name is ${name.length} characters long; at most ${limits.maxNameLength} are accepted.`,
    );
  const sum = total + name.length;
  if (sum > limits.maxNamesTotal)
    throw new ArchiveError('too_large', `The names of the ${kind}'s entries add up to more than ${limits.maxNamesTotal} characters.`);
  return sum;
}

const LOCAL_HEADER = 30;

/**
 * Refuses entries that share bytes: each entry owns at least its 30-byte local header and its
 * compressed data, from its offset on, and the next entry must start after that. Entries pointing
 * at one local header (100,000 names for one empty file) or at one body (eight part files
 * inflating the same 256 MiB) are a bomb, not an export: no ZIP writer produces them.
 */
function checkOverlaps(records: ZipRecord[], size: number): void {
  const sorted = [...records].sort((a, b) => a.offset - b.offset);
  for (let i = 0; i < sorted.length; i += 1) {
    const e = sorted[i]!;
    const next = sorted[i + 1];
    e.limit = next ? next.offset : size;
    if (e.offset + LOCAL_HEADER + e.compressedSize > e.limit) {
      const other = next ? `${clip(next.name, 200)} (at byte ${next.offset})` : 'the end of the file';
      throw new ArchiveError(
        'overlap',
        `The ZIP's entries overlap: ${clip(e.name, 200)} (at byte ${e.offset}, ${e.compressedSize} compressed bytes) runs into ${other}; refused as a possible decompression bomb.`,
      );
    }
  }
}

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
  // The count comes from the end of central directory record: refused before a single entry is read.
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    throw new ArchiveError('too_large', `The ZIP lists ${zip.entryCount} entries; at most ${limits.maxEntries} are accepted.`);
  }
  const records: ZipRecord[] = [];
  const byName = new Map<string, ZipRecord>();
  let total = 0;
  let names = 0;
  const turn = turns();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (e: yauzl.Entry) => {
        try {
          names = checkName(e.fileName, names, limits, 'ZIP');
          const r: ZipRecord = {
            name: e.fileName,
            offset: e.relativeOffsetOfLocalHeader,
            compressedSize: e.compressedSize,
            uncompressedSize: e.uncompressedSize,
            method: e.compressionMethod,
            encrypted: e.isEncrypted(),
            limit: src.size,
          };
          records.push(r);
          if (!e.fileName.endsWith('/')) {
            byName.set(e.fileName, r);
            total += e.uncompressedSize;
          }
        } catch (err) {
          return reject(err as Error);
        }
        // Entries already in the cached block arrive on promises alone: give the loop its turns.
        const t = turn();
        if (t) t.then(() => zip.readEntry(), reject);
        else zip.readEntry();
      });
      zip.on('end', () => resolve());
      zip.on('error', (err: Error) => reject(zipError(err)));
      zip.readEntry();
    });
    if (total > limits.maxTotalBytes) {
      throw new ArchiveError(
        'too_large',
        `The ZIP's files inflate to ${total} bytes; at most ${limits.maxTotalBytes} are accepted (a possible decompression bomb).`,
      );
    }
    checkOverlaps(records, src.size);
  } catch (err) {
    zip.close();
    throw err;
  }
  return {
    container: 'zip',
    entries: [...byName.values()].map((e) => ({ name: e.name, size: e.uncompressedSize })),
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
      if (e.encrypted) throw new ArchiveError('corrupt', `${what} is encrypted; export the archive again without a password.`);
      if (e.method !== 0 && e.method !== 8)
        throw new ArchiveError('corrupt', `${what} is compressed with method ${e.method}; only stored and deflated entries are read.`);
      const inflate = e.method === 8 ? createInflateRaw() : null;
      const out = guard(Math.min(limits.maxEntryBytes, e.uncompressedSize), what, inflate && consumedBy(inflate), limits, e.uncompressedSize);
      out.on('close', () => inflate?.destroy());
      // The local header says where the data starts: the data must end before the next entry.
      const entry = { relativeOffsetOfLocalHeader: e.offset, compressedSize: e.compressedSize } as yauzl.Entry;
      zip.readLocalFileHeader(entry, { minimal: true }, (err, header) => {
        if (err) return out.destroy(zipError(err));
        if (out.destroyed) return;
        if (header.fileDataStart + e.compressedSize > e.limit)
          return out.destroy(new ArchiveError('overlap', `${what}'s data runs into the next entry; refused as a possible decompression bomb.`));
        zip.openReadStreamLowLevel(header.fileDataStart, e.compressedSize, 0, e.compressedSize, false, null, (err2, raw) => {
          if (err2 || !raw) return out.destroy(zipError(err2 ?? new Error('no stream')));
          if (out.destroyed) return raw.destroy();
          inflateInto(raw, inflate, out, zipError);
        });
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
    // The whole tar.gz is one gzip stream: its ratio is measured on the bytes inflated so far.
    const out = guard(limits.maxTotalBytes, 'The tar.gz file', consumedBy(gunzip), limits);
    inflateInto(raw, gunzip, out, (e) => (e instanceof ArchiveError ? e : new ArchiveError('corrupt', 'The tar.gz file is corrupt or truncated.')));
    input = out;
  }
  input.on('error', (e) => extract.destroy(e));
  input.pipe(extract);
  let count = 0;
  let names = 0;
  const turn = turns();
  const kind = gz ? 'tar.gz' : 'tar';
  // What the bytes can hold: a plain tar's entry ends within the upload; a tar.gz inflates to at
  // most `maxRatio` times the upload (past `ratioFloor`) and to `maxTotalBytes` (guard, above).
  const room = gz ? Math.min(limits.maxTotalBytes, Math.max(limits.ratioFloor, limits.maxRatio * src.size)) : src.size;
  try {
    for await (const entry of extract) {
      await turn();
      const h = entry.header;
      /** Where the entry's data starts in the tar (tar-stream's own count of the header bytes read). */
      const at = (h as { byteOffset?: number }).byteOffset ?? 0;
      count += 1;
      if (count > limits.maxEntries)
        throw new ArchiveError('too_large', `The ${kind} lists more than ${limits.maxEntries} entries; at most ${limits.maxEntries} are accepted.`);
      names = checkName(h.name, names, limits, kind);
      // A header may declare any size (base-256 reaches 2^95): one that the upload cannot hold is
      // refused now, not waited for.
      const size = h.size ?? 0;
      if (!gz && at + size > src.size)
        throw new ArchiveError(
          'corrupt',
          `The tar file ends inside ${clip(h.name, 200)}: its header declares ${size} bytes, the upload holds ${Math.max(0, src.size - at)} of them. It is truncated.`,
        );
      if (gz && size > room)
        throw new ArchiveError(
          'corrupt',
          `${clip(h.name, 200)} in the tar.gz declares ${size} bytes, more than an upload of ${src.size} bytes can inflate to: it is corrupt or truncated.`,
        );
      // The tar failed under this entry while the loop had its turn (its data ended early): the
      // stream is gone, and the loop's next step throws the tar's error.
      if (entry.destroyed) continue;
      if (h.type !== 'file') {
        entry.resume();
        continue;
      }
      if ((await onEntry(h.name, size, entry as unknown as Readable)) === 'stop') return count;
    }
  } catch (err) {
    throw err instanceof ArchiveError
      ? err
      : new ArchiveError('corrupt', `The ${gz ? 'tar.gz' : 'tar'} file cannot be read (${(err as Error).message}): it is corrupt or truncated.`);
  } finally {
    raw.destroy();
    input.destroy();
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

/**
 * A small file read whole, refused past `maxBytes` as its bytes arrive (Instagram's
 * personal_information.json; one Medium or Substack post's HTML, bounded like one post).
 */
export async function readText(stream: Readable, maxBytes: number, what = 'A side file of the export'): Promise<string> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of stream) {
    n += (c as Buffer).length;
    if (n > maxBytes) {
      stream.destroy();
      throw new ArchiveError('too_large', `${what} is larger than ${maxBytes} bytes; at most ${maxBytes} are accepted.`);
    }
    parts.push(c as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}
