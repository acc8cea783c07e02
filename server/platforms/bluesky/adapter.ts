// Bluesky (AT Protocol). The handle is like `user.bsky.social`; the credential is an app
// password. Every call opens a session on the service at `BLUESKY_SERVICE_URL` (default
// https://bsky.social), which also proxies the app.bsky.* reads to the AppView.
import { createHash } from 'node:crypto';
import {
  AdapterError as Err,
  type AdapterContext,
  type Credentials,
  type BlueskyImagesEmbed,
  type FetchedPost,
  type ImageToUpload,
  type MediaRef,
  type PlatformAdapter,
  type Published,
} from '../../adapters/types.js';
import { jsonBody, memoized, send, sendJson } from '../../adapters/http.js';
import { refusesTextBy } from '../counting.js';
import { blueskyCounting, withWarning } from './counting.js';
import { count, dated, dateOf, httpUrl, tidy } from '../../adapters/text.js';
import { detectFacets, facetsOf } from './facets.js';

const HANDLE = /^@?((?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62})$/i;
const PAGE = 100;

interface Session {
  accessJwt: string;
  did: string;
  handle: string;
}

interface FeedItem {
  post?: {
    uri?: string;
    author?: { did?: string; handle?: string };
    record?: { text?: string; createdAt?: string };
    indexedAt?: string;
    likeCount?: number;
    repostCount?: number;
    replyCount?: number;
    quoteCount?: number;
    embed?: EmbedView;
  };
  reason?: unknown;
}

/** The views of a post's embed that carry media (app.bsky.embed.images#view, video#view, recordWithMedia#view). */
interface EmbedView {
  $type?: string;
  images?: Array<{ fullsize?: string; thumb?: string; alt?: string; aspectRatio?: { width?: number; height?: number } }>;
  playlist?: string;
  alt?: string;
  aspectRatio?: { width?: number; height?: number };
  media?: EmbedView;
}

/**
 * A post's images (with their alt text) or video. Bluesky keeps no pixel size, only the
 * `aspectRatio` the author's client recorded (usually the image's pixel size): it becomes width and height.
 */
export function blueskyMedia(embed: EmbedView | undefined): MediaRef[] {
  if (!embed || typeof embed !== 'object') return [];
  const alt = (a: unknown) => (typeof a === 'string' && a.trim() ? a : null);
  const size = (r: EmbedView['aspectRatio']) => ({ width: count(r?.width) || null, height: count(r?.height) || null });
  switch (embed.$type) {
    case 'app.bsky.embed.images#view':
      return (embed.images ?? []).map((i) => ({
        type: 'image' as const,
        url: httpUrl(i.fullsize) ?? httpUrl(i.thumb),
        archive_path: null,
        alt_text: alt(i.alt),
        ...size(i.aspectRatio),
      }));
    case 'app.bsky.embed.video#view':
      return [{ type: 'video', url: httpUrl(embed.playlist), archive_path: null, alt_text: alt(embed.alt), ...size(embed.aspectRatio) }];
    case 'app.bsky.embed.recordWithMedia#view':
      return blueskyMedia(embed.media);
    default:
      return [];
  }
}

function handleOf(handle: string): string {
  const m = HANDLE.exec(handle);
  if (!m) throw new Err('invalid_input', 'a bluesky handle is a domain name, e.g. ada.bsky.social', null, 'handle');
  return m[1].toLowerCase();
}

const service = (ctx: AdapterContext) => ctx.config.blueskyServiceUrl;
const xrpc = (ctx: AdapterContext, method: string, q?: URLSearchParams) => `${service(ctx)}/xrpc/${method}${q ? `?${q}` : ''}`;
const bearer = (s: Session) => ({ authorization: `Bearer ${s.accessJwt}` });
const rkeyOf = (uri: string) => uri.split('/').pop() ?? '';
const postUrl = (handle: string, uri: string) => `https://bsky.app/profile/${handle}/post/${rkeyOf(uri)}`;

async function createSession(ctx: AdapterContext, handle: string, creds: Credentials): Promise<Session> {
  if (!creds.secret) throw new Err('credential_rejected', 'a bluesky account needs an app password in auth_material');
  const body: Record<string, string> = { identifier: handleOf(handle), password: creds.secret };
  // secondary_auth carries the emailed sign-in code of an account with two-factor sign-in.
  if (creds.secondary) body.authFactorToken = creds.secondary;
  const s = await sendJson<Partial<Session>>(ctx, {
    url: xrpc(ctx, 'com.atproto.server.createSession'),
    method: 'POST',
    what: 'createSession',
    authenticated: true,
    ...jsonBody(body),
  }).catch((err: unknown) => {
    // The PDS answers a wrong password with 401, and some failures with 400 AuthFactorTokenRequired.
    if (err instanceof Err && err.status === 400) throw new Err('credential_rejected', err.message, 400);
    throw err;
  });
  if (typeof s.accessJwt !== 'string' || typeof s.did !== 'string') throw new Err('invalid_response', 'createSession answered without a session');
  return { accessJwt: s.accessJwt, did: s.did, handle: s.handle ?? handleOf(handle) };
}

/** One session per publish run (ctx.memo): a thread's parts and its uploads share it. */
const sessionOnce = (ctx: AdapterContext, handle: string, creds: Credentials) =>
  memoized(ctx, `bluesky:session:${handle}:${creds.secret}`, () => createSession(ctx, handle, creds));

function toPost(item: FeedItem, did: string, handle: string, now: Date): FetchedPost | null {
  const p = item.post;
  // Reposts (a `reason`) and other authors' posts are not the handle's own writing.
  if (!p || item.reason || p.author?.did !== did || typeof p.uri !== 'string') return null;
  const text = tidy(p.record?.text ?? '');
  const { publishedAt, unreadDate } = dated(p.record?.createdAt, dateOf(p.record?.createdAt) ?? dateOf(p.indexedAt), now);
  const media = blueskyMedia(p.embed);
  if (!text && !media.length) return null;
  return {
    externalId: p.uri,
    url: postUrl(handle, p.uri),
    text,
    publishedAt,
    metrics: { likes: count(p.likeCount), reposts: count(p.repostCount), replies: count(p.replyCount), quotes: count(p.quoteCount) },
    media,
    unreadDate,
  };
}

const TID_CHARS = '234567abcdefghijklmnopqrstuvwxyz';

/**
 * A record key (TID) fixed for one part of one artifact: the artifact's creation time in
 * microseconds plus the part's position, and a clock id from the artifact's id. Publishing the
 * same part again targets the same record, so it cannot post twice; a thread's keys sort in order.
 */
export function tidFor(key: { id: string; createdAt: Date; position?: number }): string {
  const clock = createHash('sha256').update(key.id).digest().readUInt16BE(0) & 0x3ff;
  let n = ((BigInt(key.createdAt.getTime()) * 1000n + BigInt(key.position ?? 0)) << 10n) | BigInt(clock);
  let out = '';
  for (let i = 0; i < 13; i++) {
    out = TID_CHARS[Number(n & 31n)] + out;
    n >>= 5n;
  }
  return out;
}

const COLLECTION = 'app.bsky.feed.post';

function recordRef(res: { json<T>(): T }): { uri: string; cid: string | null } | null {
  try {
    const { uri, cid } = res.json<{ uri?: unknown; cid?: unknown }>();
    return typeof uri === 'string' ? { uri, cid: typeof cid === 'string' ? cid : null } : null;
  } catch {
    return null;
  }
}

/** The failures after which a create may have happened all the same (see publish). */
const OUTCOME_UNKNOWN = new Set<Err['kind']>(['unavailable', 'rejected', 'invalid_response']);

/** com.atproto.repo.getRecord of our post at `rkey`: its uri and cid, or null when it is not there (or cannot be read now). */
async function readRecord(ctx: AdapterContext, s: Session, rkey: string): Promise<{ uri: string; cid: string | null } | null> {
  const q = new URLSearchParams({ repo: s.did, collection: COLLECTION, rkey });
  const found = await send(ctx, { url: xrpc(ctx, 'com.atproto.repo.getRecord', q), what: 'getRecord', authenticated: true, headers: bearer(s) }).catch(
    () => null,
  );
  return found ? recordRef(found) : null;
}

/**
 * The text a Bluesky post shows for a text under a content warning: `CW: <warning>`, an empty
 * line, the text. Defined with the counting rules (./counting.ts) so that the length
 * checks count what is posted.
 */
export { withWarning };

/** Bluesky's rules as the variants count them (./counting.ts): 300 graphemes, 3,000 bytes of UTF-8, the `CW:` line included. */
const tooLong = refusesTextBy(blueskyCounting);

/**
 * The DIDs of the handles a text mentions, through com.atproto.identity.resolveHandle on the
 * account's PDS. A handle that does not resolve (the PDS refuses it: no such handle) is left out,
 * and its mention stays plain text; a PDS that is down is an `unavailable` error (the run retries).
 */
async function resolveHandles(ctx: AdapterContext, s: Session, handles: string[]): Promise<Map<string, string>> {
  const dids = new Map<string, string>();
  for (const handle of new Set(handles)) {
    if (handle === s.handle.toLowerCase()) {
      dids.set(handle, s.did);
      continue;
    }
    try {
      const r = await sendJson<{ did?: unknown }>(ctx, {
        url: xrpc(ctx, 'com.atproto.identity.resolveHandle', new URLSearchParams({ handle })),
        what: 'resolveHandle',
        authenticated: true,
        headers: bearer(s),
      });
      if (typeof r.did === 'string' && r.did.startsWith('did:')) dids.set(handle, r.did);
    } catch (err) {
      if (!(err instanceof Err) || (err.kind !== 'rejected' && err.kind !== 'not_found' && err.kind !== 'invalid_response')) throw err;
    }
  }
  return dids;
}

/** The post's rich-text facets (links, resolved mentions, tags), with UTF-8 byte offsets. */
async function richText(ctx: AdapterContext, s: Session, text: string) {
  const detected = detectFacets(text);
  const dids = await resolveHandles(
    ctx,
    s,
    detected.flatMap((f) => (f.kind === 'mention' ? [f.handle] : [])),
  );
  const facets = facetsOf(text, detected, (h) => dids.get(h) ?? null);
  return facets.length ? { facets } : {};
}

const strongRef = (p: Published) => ({ uri: p.externalId, cid: p.cid ?? '' });

/** The most bytes of one image of an `app.bsky.embed.images` embed (its lexicon's `maxSize`). */
export const BLUESKY_MAX_IMAGE_BYTES = 1_000_000;

/**
 * com.atproto.repo.uploadBlob for each image (raw bytes, its MIME type), then the
 * `app.bsky.embed.images` embed that shows them in order, each with its alt text (the lexicon
 * requires `alt`; "" when there is none) and its aspect ratio.
 */
async function uploadBlueskyImages(ctx: AdapterContext, s: Session, images: ImageToUpload[]): Promise<BlueskyImagesEmbed> {
  const out: BlueskyImagesEmbed['images'] = [];
  for (const [i, img] of images.entries()) {
    if (img.bytes.length > BLUESKY_MAX_IMAGE_BYTES)
      throw new Err('invalid_input', `image ${i + 1} has ${img.bytes.length} bytes; bluesky takes at most ${BLUESKY_MAX_IMAGE_BYTES} per image`, null, 'media');
    const made = await sendJson<{ blob?: BlueskyImagesEmbed['images'][number]['image'] }>(ctx, {
      url: xrpc(ctx, 'com.atproto.repo.uploadBlob'),
      method: 'POST',
      what: 'uploadBlob',
      authenticated: true,
      body: img.bytes,
      headers: { ...bearer(s), 'content-type': img.contentType },
    });
    const blob = made.blob;
    if (!blob || typeof blob.ref?.$link !== 'string') throw new Err('invalid_response', 'uploadBlob answered without a blob');
    out.push({ image: blob, alt: img.altText ?? '', aspectRatio: { width: img.width, height: img.height } });
  }
  return { $type: 'app.bsky.embed.images', images: out };
}

export const blueskyAdapter: PlatformAdapter = {
  platform: 'bluesky',
  ingestLimit: 200,
  needsCredentials: true,
  normalizeHandle: handleOf,
  async probe(ctx, handle, creds) {
    const s = await createSession(ctx, handle, creds);
    if (s.handle.toLowerCase() !== handleOf(handle)) throw new Err('credential_rejected', `the app password belongs to ${s.handle}, not ${handleOf(handle)}`);
    return { displayName: s.handle };
  },
  async listPosts(ctx, handle, creds, opts) {
    const s = await createSession(ctx, handle, creds);
    const posts: FetchedPost[] = [];
    let cursor: string | undefined;
    while (posts.length < opts.max) {
      const q = new URLSearchParams({ actor: s.did, limit: String(PAGE), filter: 'posts_no_replies' });
      if (cursor) q.set('cursor', cursor);
      const page = await sendJson<{ feed?: FeedItem[]; cursor?: string }>(ctx, {
        url: xrpc(ctx, 'app.bsky.feed.getAuthorFeed', q),
        what: 'getAuthorFeed',
        authenticated: true,
        headers: bearer(s),
      });
      if (!Array.isArray(page.feed)) throw new Err('invalid_response', 'getAuthorFeed answered without a feed');
      for (const item of page.feed) {
        const p = toPost(item, s.did, s.handle, ctx.now);
        if (p) posts.push(p);
      }
      if (!page.cursor || page.feed.length === 0) break;
      cursor = page.cursor;
    }
    return { posts: posts.slice(0, opts.max), withdrawn: [] };
  },
  refusesText: tooLong,
  async publish(ctx, handle, creds, part) {
    // Bluesky has no content warning (its self-labels name only adult content and graphic media):
    // the warning opens the text, so that it is still read first.
    const text = withWarning(part.text, part.contentWarning);
    const refused = tooLong(text);
    if (refused) throw new Err('invalid_input', refused, null, 'text');
    const s = await sessionOnce(ctx, handle, creds);
    const rkey = tidFor(part.key);
    // A thread's part answers its parent and names the thread's root (both as uri + cid).
    const reply = part.replyTo ? { reply: { root: strongRef(part.replyTo.root), parent: strongRef(part.replyTo.parent) } } : {};
    const embed = part.media && 'embed' in part.media ? { embed: part.media.embed } : {};
    const record = { $type: COLLECTION, text, ...(await richText(ctx, s, text)), createdAt: ctx.now.toISOString(), ...reply, ...embed };
    try {
      const made = await sendJson<{ uri?: string; cid?: string }>(ctx, {
        url: xrpc(ctx, 'com.atproto.repo.createRecord'),
        method: 'POST',
        what: 'createRecord',
        authenticated: true,
        ...jsonBody({ repo: s.did, collection: COLLECTION, rkey, record }),
        headers: { ...bearer(s), 'content-type': 'application/json' },
      });
      if (typeof made.uri !== 'string') throw new Err('invalid_response', 'createRecord answered without a uri');
      return { externalId: made.uri, url: postUrl(s.handle, made.uri), cid: typeof made.cid === 'string' ? made.cid : null };
    } catch (err) {
      // The create's outcome is unknown: the connection dropped or timed out before the answer
      // (`unavailable`), the PDS failed (5xx: the reference PDS answers a create at a key already
      // taken with 500, its repository refusing a second value there), or it refused (4xx: some PDSes
      // answer a taken key that way). Read the record at the key before deciding: if it is there, an
      // earlier attempt got through and the part is live; if not, the first error stands.
      if (!(err instanceof Err) || !OUTCOME_UNKNOWN.has(err.kind)) throw err;
      const ref = await readRecord(ctx, s, rkey);
      if (!ref) throw err;
      return { externalId: ref.uri, url: postUrl(s.handle, ref.uri), cid: ref.cid };
    }
  },
  async uploadImages(ctx, handle, creds, images) {
    const s = await sessionOnce(ctx, handle, creds);
    return { embed: await uploadBlueskyImages(ctx, s, images) };
  },
};
