// Operator archives (`cpa admin workspace export`, `cpa admin backup`) taken apart and put back
// together entry by entry, so that a test can change what no exporter would write: a row, a
// manifest's name, an entry's name or type (links), its declared size, its order.
import { createHash } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gunzipSync } from 'node:zlib';
import tar from 'tar-stream';

export interface CraftedEntry {
  name: string;
  data: Buffer;
  /** 'file' unless given: a 'symlink' or 'link' (hard link) points at `linkname`. */
  type?: 'file' | 'symlink' | 'link' | 'directory';
  linkname?: string;
  /** Bytes of zeros appended to `data` as the entry's body (a bomb: they gzip to almost nothing). */
  zeros?: number;
}

/** The entries of a .tar.gz, in order (regular files only, as the exporters write). */
export async function readEntries(file: string): Promise<CraftedEntry[]> {
  const extract = tar.extract();
  const out: CraftedEntry[] = [];
  const done = (async () => {
    for await (const e of extract) {
      const chunks: Buffer[] = [];
      for await (const c of e) chunks.push(c as Buffer);
      out.push({ name: e.header.name, data: Buffer.concat(chunks) });
    }
  })();
  extract.end(gunzipSync(readFileSync(file)));
  await done;
  return out;
}

/** Writes `entries` as a .tar.gz, streamed (a bomb is never whole in memory); `trailingZeros` bytes of zeros after tar's end, as a second gzip member (a bomb past the archive). */
export async function writeEntries(file: string, entries: CraftedEntry[], trailingZeros = 0): Promise<void> {
  const pack = tar.pack();
  const written = pipeline(pack, createGzip({ level: 9 }), createWriteStream(file));
  const mtime = new Date(Date.UTC(2026, 0, 1));
  for (const e of entries) {
    const type = e.type ?? 'file';
    if (type !== 'file') {
      pack.entry({ name: e.name, type, linkname: e.linkname, mtime });
      continue;
    }
    const zeros = e.zeros ?? 0;
    const body = pack.entry({ name: e.name, size: e.data.length + zeros, mode: 0o600, mtime });
    await pipeline(Readable.from(withZeros(e.data, zeros)), body);
  }
  pack.finalize();
  await written;
  if (trailingZeros)
    await pipeline(Readable.from(withZeros(Buffer.alloc(0), trailingZeros)), createGzip({ level: 9 }), createWriteStream(file, { flags: 'a' }));
}

function* withZeros(data: Buffer, zeros: number): Generator<Buffer> {
  if (data.length) yield data;
  const block = Buffer.alloc(1024 * 1024);
  for (let left = zeros; left > 0; left -= block.length) yield left >= block.length ? block : block.subarray(0, left);
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The manifest entry (`manifest.json`, `backup.json`) parsed, and a function putting a changed one back. */
export function manifestOf<M>(entries: CraftedEntry[], name: string): { manifest: M; put(m: M): void } {
  const e = entries.find((x) => x.name === name)!;
  return {
    manifest: JSON.parse(e.data.toString('utf8')) as M,
    put: (m) => {
      e.data = Buffer.from(JSON.stringify(m, null, 2));
    },
  };
}

/** Re-lists `name` in a manifest's `files` with the size and hash of its bytes now (a consistent forgery). */
export function relist(files: Array<{ path: string; bytes: number; sha256: string }>, name: string, data: Buffer): void {
  const f = files.find((x) => x.path === name);
  if (f) Object.assign(f, { bytes: data.length, sha256: sha256(data) });
  else files.push({ path: name, bytes: data.length, sha256: sha256(data) });
}
