// Bluesky repository export (Settings → Export my data): a CAR v1 file of DAG-CBOR blocks, the
// whole atproto repository. The header's root is the signed commit ({did, data, rev, sig, …});
// `data` is the root of a merkle search tree (MST) whose nodes ({l, e: [{p, k, v, t}]}) map each
// record's key (`app.bsky.feed.post/<rkey>`) to the CID of the record's block. The records carry
// their `$type`: posts (`app.bsky.feed.post`) are imported; reposts and likes, follows and the
// rest are counted as left out.
//
// The blocks come in no guaranteed order (a PDS may write records before the tree nodes that
// name them), and a post's address needs its rkey, which only the tree has. So the file is read
// twice, as a stream each time (never whole in memory): the first pass decodes only the commit
// and the tree nodes and keeps, for every post, record CID → rkey (a map bounded by the number
// of posts: ~150 bytes a post, ~15 MB for 100,000); the second decodes the records. The IPLD
// project's own decoders read the bytes (@ipld/car's streaming reader, @ipld/dag-cbor,
// multiformats' CID), so nothing of the CAR or CBOR encodings is parsed by hand here.
import type { Readable } from 'node:stream';
import { asyncIterableReader, readBlockHead, readHeader } from '@ipld/car/decoder';
import { decode as decodeCbor } from '@ipld/dag-cbor';
import { CID } from 'multiformats/cid';
import { dated, dateOf, httpUrl, isShownAddress, MAX_TEXT } from '../text.js';
import { ArchiveError } from './errors.js';
import type { ArchiveItem, MediaRef, ReadOptions } from './types.js';

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const list = (v: unknown): Node[] => (Array.isArray(v) ? (v as unknown[]).map(obj) : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** atproto caps a record at 1 MiB and MST nodes are far smaller: a larger block is not a repository's. */
export const MAX_BLOCK_BYTES = 2 * 1024 * 1024;
const POSTS = 'app.bsky.feed.post/';

/** The repository's owner and, for each post record, its rkey (by the record's CID). */
export interface RepoIndex {
  did: string;
  rkeys: Map<string, string>;
}

const cidKey = (cid: { multihash: { digest: Uint8Array } }) => Buffer.from(cid.multihash.digest).toString('base64');

interface Block {
  cid: CID;
  bytes: Uint8Array;
}

/** The CAR's root and its blocks, streamed; a malformed file is a 422 naming it. */
async function* blocks(input: Readable, what: string, roots?: (r: CID[]) => void): AsyncGenerator<Block> {
  const reader = asyncIterableReader(input as AsyncIterable<Uint8Array>);
  try {
    const header = await readHeader(reader, 1);
    roots?.(header.roots);
    while ((await reader.upTo(8)).length > 0) {
      const head = await readBlockHead(reader);
      if (head.blockLength > MAX_BLOCK_BYTES)
        throw new ArchiveError('unreadable', `${what} holds a block of ${head.blockLength} bytes; a repository's are at most ${MAX_BLOCK_BYTES}.`);
      const bytes = await reader.exactly(head.blockLength, true);
      yield { cid: head.cid, bytes };
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError('unreadable', `${what} is not a readable CAR file (${String((err as Error)?.message ?? err).split('\n')[0]}).`);
  } finally {
    // Also when the reader stops early (an ingest aborted, a listing that had enough posts).
    input.destroy();
  }
}

/** An MST node is the DAG-CBOR map {e, l}: canonical key order puts `e` first (0xa2 0x61 0x65). */
const looksLikeNode = (b: Uint8Array) => b[0] === 0xa2 && b[1] === 0x61 && b[2] === 0x65;

const decode = (b: Block): unknown => {
  try {
    return decodeCbor(b.bytes);
  } catch {
    return null;
  }
};

/** First pass: the commit's DID and the rkey of every post, from the tree nodes. */
export async function indexRepo(input: Readable, what: string): Promise<RepoIndex> {
  let root: CID | null = null;
  let did: string | null = null;
  let data: string | null = null;
  const rkeys = new Map<string, string>();
  // The tree's nodes seen and those named (by the commit or a parent): a CAR cut between blocks lacks some.
  const nodes = new Set<string>();
  const named = new Set<string>();
  const text = new TextDecoder();
  for await (const b of blocks(input, what, (r) => (root = r[0] ?? null))) {
    if (root && b.cid.equals(root)) {
      const commit = obj(decode(b));
      did = str(commit.did);
      data = commit.data instanceof CID ? cidKey(commit.data) : null;
      continue;
    }
    if (!looksLikeNode(b.bytes)) continue;
    const node = obj(decode(b));
    if (!Array.isArray(node.e) || !('l' in node)) continue;
    nodes.add(cidKey(b.cid));
    if (node.l instanceof CID) named.add(cidKey(node.l));
    // Keys are prefix-compressed against the previous entry of the same node.
    let key = '';
    for (const e of list(node.e)) {
      const p = typeof e.p === 'number' ? e.p : 0;
      key = key.slice(0, p) + (e.k instanceof Uint8Array ? text.decode(e.k) : '');
      if (e.t instanceof CID) named.add(cidKey(e.t));
      const v = e.v instanceof CID ? e.v : null;
      if (v && key.startsWith(POSTS)) rkeys.set(cidKey(v), key.slice(POSTS.length));
    }
  }
  if (!did) throw new ArchiveError('unreadable', `${what} has no repository commit (no DID): it is not a Bluesky repository export.`);
  if (data) named.add(data);
  for (const n of named) if (!nodes.has(n)) throw truncated(what);
  return { did, rkeys };
}

const truncated = (what: string) =>
  new ArchiveError('unreadable', `${what} lacks part of the repository its commit names: the CAR is truncated or incomplete.`);

const postUri = (did: string, rkey: string) => `at://${did}/app.bsky.feed.post/${rkey}`;
const webUrl = (did: string, rkey: string) => `https://bsky.app/profile/${did}/post/${encodeURIComponent(rkey)}`;

/**
 * The text with its link facets turned back into the full addresses: Bluesky clients shorten a
 * link's shown text (`example.com/articles/12…`) and keep the address in a facet, located by
 * UTF-8 byte offsets. A shortened text is replaced by the address; a link on other words keeps
 * them, followed by the address in parentheses. Facets that overlap or fall outside the text are
 * ignored.
 */
export function expandFacets(text: string, facets: unknown): string {
  const links = list(facets)
    .map((f) => {
      const i = obj(f.index);
      const uri = list(f.features).find((x) => x.$type === 'app.bsky.richtext.facet#link')?.uri;
      return { start: Number(i.byteStart), end: Number(i.byteEnd), uri: httpUrl(uri) };
    })
    .filter((l): l is { start: number; end: number; uri: string } => !!l.uri && Number.isInteger(l.start) && Number.isInteger(l.end) && l.start < l.end)
    .sort((a, b) => a.start - b.start);
  if (!links.length) return text;
  const bytes = Buffer.from(text, 'utf8');
  const parts: string[] = [];
  let at = 0;
  for (const l of links) {
    if (l.start < at || l.end > bytes.length) continue;
    parts.push(bytes.toString('utf8', at, l.start));
    const shown = bytes.toString('utf8', l.start, l.end);
    parts.push(isShownAddress(shown, l.uri) ? l.uri : `${shown} (${l.uri})`);
    at = l.end;
  }
  parts.push(bytes.toString('utf8', at));
  return parts.join('');
}

const cidOf = (blob: unknown): string | null => {
  const b = obj(blob);
  const ref = b.ref instanceof CID ? b.ref : CID.asCID(b.ref);
  if (ref) return ref.toString();
  return str(b.cid); // the legacy blob shape {cid, mimeType}
};
const dim = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);

/** Images (and a video) with their alt text, by blob CID: the blobs are not in the CAR, the CDN serves them. */
function mediaOf(embed: Node, did: string): MediaRef[] {
  const type = str(embed.$type);
  if (type === 'app.bsky.embed.recordWithMedia') return mediaOf(obj(embed.media), did);
  if (type === 'app.bsky.embed.images') {
    return list(embed.images).flatMap((img) => {
      const cid = cidOf(img.image);
      if (!cid) return [];
      const ratio = obj(img.aspectRatio);
      return [
        {
          type: 'image' as const,
          url: `https://cdn.bsky.app/img/feed_fullsize/plain/${did}/${cid}@jpeg`,
          archive_path: null,
          alt_text: str(img.alt)?.trim() || null,
          width: dim(ratio.width),
          height: dim(ratio.height),
        },
      ];
    });
  }
  if (type === 'app.bsky.embed.video') {
    const cid = cidOf(embed.video);
    if (!cid) return [];
    const ratio = obj(embed.aspectRatio);
    return [
      {
        type: 'video',
        url: `https://video.bsky.app/watch/${encodeURIComponent(did)}/${cid}/playlist.m3u8`,
        archive_path: null,
        alt_text: str(embed.alt)?.trim() || null,
        width: dim(ratio.width),
        height: dim(ratio.height),
      },
    ];
  }
  return [];
}

/** A link card's address, added to the text when the text does not carry it. */
function withCard(text: string, embed: Node): string {
  const e = str(embed.$type) === 'app.bsky.embed.external' ? embed : null;
  const uri = e ? httpUrl(obj(e.external).uri) : null;
  if (!uri || text.includes(uri)) return text;
  return text ? `${text}\n\n${uri}` : uri;
}

/** One record, classified: the author's posts and self-threads in, everything else counted out. */
export function blueskyItem(record: unknown, rkey: string | undefined, repo: RepoIndex, now: Date): ArchiveItem | null {
  const r = obj(record);
  const type = str(r.$type);
  if (!type) return null; // not a record (a stale tree node, a blob-less leftover)
  if (type === 'app.bsky.feed.repost') return { skip: 'repost' };
  if (type === 'app.bsky.feed.like') return { skip: 'like' };
  if (type !== 'app.bsky.feed.post') return { skip: 'not_a_post' };
  if (!rkey || typeof r.text !== 'string') return { skip: 'unreadable' };
  const { publishedAt, unreadDate } = dated(r.createdAt, dateOf(r.createdAt), now);
  const own = `at://${repo.did}/`;
  const reply = obj(r.reply);
  let replyTo: string | null = null;
  if (r.reply) {
    const parent = str(obj(reply.parent).uri);
    const root = str(obj(reply.root).uri);
    // Threads are kept only when the whole conversation is the author's.
    if (!parent?.startsWith(own) || !root?.startsWith(own)) return { skip: 'reply' };
    replyTo = parent;
  }
  const embed = obj(r.embed);
  const media = mediaOf(embed, repo.did);
  const text = withCard(expandFacets(r.text, r.facets), embed)
    .replace(/\r\n?/g, '\n')
    .trim()
    .slice(0, MAX_TEXT)
    .replace(/[\uD800-\uDBFF]$/, '');
  if (!text && !media.length) return { skip: 'empty' };
  return {
    post: {
      externalId: postUri(repo.did, rkey),
      url: webUrl(repo.did, rkey),
      text,
      publishedAt,
      // A repository holds what the author wrote, not what others did with it.
      metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0 },
      visibility: 'public',
      media,
      replyTo,
      unreadDate,
    },
  };
}

/** Both passes over the CAR (`open` streams it from the start each time). */
export async function* readBluesky(open: () => Readable, what: string, opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  const repo = await indexRepo(open(), what);
  let root: CID | null = null;
  // Every post the tree names must be there (the scan before an import reads to the end, so a CAR
  // cut between blocks is refused before anything is imported).
  let found = 0;
  const now = opts.now ?? new Date();
  for await (const b of blocks(open(), what, (r) => (root = r[0] ?? null))) {
    if (looksLikeNode(b.bytes) || (root && b.cid.equals(root))) continue;
    const rkey = repo.rkeys.get(cidKey(b.cid));
    if (rkey !== undefined) found += 1;
    const item = blueskyItem(decode(b), rkey, repo, now);
    if (item) yield item;
  }
  if (found < repo.rkeys.size) throw truncated(what);
}
