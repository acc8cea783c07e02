// Hostile archives, built byte by byte where no archiver would write them: ZIPs whose central
// directory points many entries at one local header or one body, gzip streams that inflate
// thousands of times their size, tars of thousands of part files. For the tests of the bounds in
// server/adapters/archive (docs/ingest.md, "Bounds").
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import tar from 'tar-stream';

export interface LocalFile {
  name: string;
  /** The file's bytes, as they inflate. */
  data: Buffer;
  /** 8: deflated (default), 0: stored. */
  method?: 0 | 8;
}

export interface CentralEntry {
  name: string;
  /** Index of the local file (in `locals`) whose header this entry points at. */
  local: number;
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};

/**
 * A ZIP with the given local files, and a central directory listing `central` (by default one
 * entry per local file): several entries may point at one local header. More than 65,535
 * entries get the ZIP64 end records, as real archivers write them.
 */
export function rawZip(locals: LocalFile[], central?: CentralEntry[]): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  const placed = locals.map((f) => {
    const method = f.method ?? 8;
    const body = method === 8 ? deflateRawSync(f.data) : f.data;
    const name = Buffer.from(f.name, 'utf8');
    const crc = crc32(f.data);
    const header = Buffer.concat([
      u32(0x04034b50),
      u16(20),
      u16(0x0800),
      u16(method),
      u16(0),
      u16(0x5821),
      u32(crc),
      u32(body.length),
      u32(f.data.length),
      u16(name.length),
      u16(0),
      name,
    ]);
    const at = offset;
    parts.push(header, body);
    offset += header.length + body.length;
    return { at, method, crc, csize: body.length, usize: f.data.length };
  });
  const entries = central ?? locals.map((f, i) => ({ name: f.name, local: i }));
  const cdStart = offset;
  for (const e of entries) {
    const p = placed[e.local]!;
    const name = Buffer.from(e.name, 'utf8');
    parts.push(
      Buffer.concat([
        u32(0x02014b50),
        u16(20),
        u16(20),
        u16(0x0800),
        u16(p.method),
        u16(0),
        u16(0x5821),
        u32(p.crc),
        u32(p.csize),
        u32(p.usize),
        u16(name.length),
        u16(0),
        u16(0),
        u16(0),
        u16(0),
        u32(0),
        u32(p.at),
        name,
      ]),
    );
    offset += 46 + name.length;
  }
  const cdSize = offset - cdStart;
  const zip64 = entries.length > 0xfffe;
  if (zip64) {
    const eocd64At = offset;
    parts.push(
      Buffer.concat([u32(0x06064b50), u64(44), u16(45), u16(45), u32(0), u32(0), u64(entries.length), u64(entries.length), u64(cdSize), u64(cdStart)]),
    );
    parts.push(Buffer.concat([u32(0x07064b50), u32(0), u64(eocd64At), u32(1)]));
  }
  const count = zip64 ? 0xffff : entries.length;
  parts.push(Buffer.concat([u32(0x06054b50), u16(0), u16(0), u16(count), u16(count), u32(cdSize), u32(cdStart), u16(0)]));
  return Buffer.concat(parts);
}

/**
 * A gzip of `head` followed by `padding` bytes of JSON-valid whitespace, as concatenated gzip
 * members (which every gunzip reads as one stream): GiBs of inflated bytes from a few MB.
 */
export function whitespaceGzip(head: string, padding: number): Buffer {
  const member = 64 * 1024 ** 2;
  const blank = gzipSync(Buffer.alloc(member, 0x20), { level: 9 });
  const parts = [gzipSync(Buffer.from(head))];
  for (let left = padding; left > 0; left -= member) parts.push(left >= member ? blank : gzipSync(Buffer.alloc(left, 0x20)));
  return Buffer.concat(parts);
}

/** A plain (not gzipped) tar of the files, padded to 512-byte blocks as tar writes them. */
export async function plainTar(files: Array<{ name: string; data: Buffer }>): Promise<Buffer> {
  const pack = tar.pack();
  const parts: Buffer[] = [];
  const done = (async () => {
    for await (const c of pack) parts.push(c as Buffer);
  })();
  for (const f of files) pack.entry({ name: f.name, size: f.data.length, mtime: new Date(Date.UTC(2024, 0, 1)) }, f.data);
  pack.finalize();
  await done;
  return Buffer.concat(parts);
}

/**
 * A tar whose first entry's header declares `declared` bytes in base-256 (the GNU form that
 * reaches 2^95, as tar writes sizes past 8 GiB) while the archive holds only the `holds` bytes
 * that follow the header: a lying size, or an archive cut short.
 */
export async function lyingSizeTar(name: string, declared: bigint, holds: number): Promise<Buffer> {
  const t = Buffer.from(await plainTar([{ name, data: Buffer.alloc(holds, 0x20) }]));
  t[124] = 0x80;
  let left = declared;
  for (let i = 11; i >= 1; i--) {
    t[124 + i] = Number(left & 0xffn);
    left >>= 8n;
  }
  t.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += t[i]!;
  t.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return t.subarray(0, 512 + holds);
}

const PHRASE = 'a post that goes on and on about the release, the build, the queue and the cache; ';

/**
 * `bytes` of JSON- and CSV-safe text that deflates ~30 times (a phrase with a random token every
 * ~300 bytes): hundreds of MB in a few MB of upload, under the ratio bound, so that what refuses
 * it is the size bound under test, not the bomb check.
 */
export function* bulkyText(bytes: number, seed = 7): Generator<string> {
  let x = seed;
  const next = () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x.toString(36);
  };
  const block = 64 * 1024;
  for (let left = bytes; left > 0; left -= block) {
    let s = '';
    while (s.length < Math.min(block, left)) s += `${PHRASE}${PHRASE}${PHRASE}${next()} `;
    yield s.slice(0, Math.min(block, left));
  }
}

/** A file made of strings and generated runs, as a stream (never whole in memory). */
export function streamed(parts: Array<string | (() => Iterable<string>)>): () => Readable {
  return () =>
    Readable.from(
      (function* () {
        for (const p of parts) {
          if (typeof p === 'string') yield Buffer.from(p);
          else for (const s of p()) yield Buffer.from(s);
        }
      })(),
    );
}

/** `count` X notes of about 2 KB each (note-tweet.js elements), as strings. */
export function* manyNotes(count: number): Generator<string> {
  for (let i = 0; i < count; i++) {
    const text = [...bulkyText(2000, i + 1)].join('');
    yield `${i ? ',' : ''}{"noteTweet":{"noteTweetId":"${1850000000000000000n + BigInt(i)}","createdAt":"2024-10-26T09:00:00.000Z","core":{"text":"${text}","urls":[]}}}`;
  }
}
