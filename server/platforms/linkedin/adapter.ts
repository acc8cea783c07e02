// LinkedIn (the versioned REST API at LINKEDIN_API_BASE_URL, default https://api.linkedin.com). The
// handle names the account for people (the name in its profile's address, or its person URN); the
// credential is an OAuth access token with `openid profile w_member_social`, and the token decides
// who posts: the person of GET /v2/userinfo (`urn:li:person:<sub>`). A post is POST /rest/posts
// (LinkedIn-Version, Rest.li 2.0), its id the `x-restli-id` header; its commentary is LinkedIn's
// "little" text format, in which the reserved characters are escaped so that the text arrives whole
// (unescaped, LinkedIn cuts the post at the first one). No threads (maxParts 1). Images go through
// the Images API (initializeUpload, then PUT the bytes), alt text in the post's `altText`. LinkedIn
// takes no idempotency key: after an unknown outcome the author's posts since the attempt (GET
// /rest/posts?q=author, page after page by `start`) are read back and the one with the same
// commentary adopted.
// Counting: ./counting.ts. Fake: test/support/fakes/linkedin.ts.
import { AdapterError, type AdapterContext, type Credentials, type FetchedPost, type PlatformAdapter, type Published } from '../../adapters/types.js';
import { exchange, jsonBody, memoized, send, sendJson, statusError } from '../../adapters/http.js';
import { refusesTextBy } from '../counting.js';
import { linkedinCounting } from './counting.js';
import { findInRecent, postOnce, READBACK_PAGE_SIZE } from '../readback.js';

/** The API version every /rest call names (LinkedIn keeps each for a year). */
export const LINKEDIN_VERSION = '202511';
const HANDLE = /^(?:([A-Za-z0-9][A-Za-z0-9-]{2,99})|urn:li:person:([A-Za-z0-9_-]{1,100}))$/;

/** The characters of the little text format that must be escaped to be plain text. */
const RESERVED = /[\\|{}@[\]()<>#*_~]/g;

/** A text as LinkedIn's little format writes it: every reserved character backslash-escaped. */
export const escapeLittle = (text: string): string => text.replace(RESERVED, (c) => `\\${c}`);

const base = (ctx: AdapterContext) => ctx.config.linkedinApiBaseUrl;
const headers = (creds: Credentials) => ({
  authorization: `Bearer ${creds.secret}`,
  'linkedin-version': LINKEDIN_VERSION,
  'x-restli-protocol-version': '2.0.0',
});

function parseHandle(handle: string): { name: string | null; sub: string | null } {
  const m = HANDLE.exec(handle.trim());
  if (!m)
    throw new AdapterError(
      'invalid_input',
      'a linkedin handle is the name in your profile address (linkedin.com/in/<name>) or your person URN urn:li:person:<id>',
      null,
      'handle',
    );
  return { name: m[1] ?? null, sub: m[2] ?? null };
}

/** The person the token posts as. */
async function person(ctx: AdapterContext, handle: string, creds: Credentials): Promise<{ urn: string; name: string }> {
  const { sub } = parseHandle(handle);
  if (!creds.secret) throw new AdapterError('credential_rejected', 'a linkedin account needs an OAuth access token in auth_material');
  const me = await sendJson<{ sub?: unknown; name?: unknown }>(ctx, {
    url: `${base(ctx)}/v2/userinfo`,
    what: 'userinfo',
    authenticated: true,
    headers: { authorization: `Bearer ${creds.secret}` },
  });
  if (typeof me.sub !== 'string' || !me.sub) throw new AdapterError('invalid_response', 'userinfo answered without a sub');
  if (sub !== null && sub !== me.sub) throw new AdapterError('credential_rejected', `the token belongs to urn:li:person:${me.sub}, not urn:li:person:${sub}`);
  return { urn: `urn:li:person:${me.sub}`, name: typeof me.name === 'string' && me.name ? me.name : handle };
}

const personOnce = (ctx: AdapterContext, handle: string, creds: Credentials) => memoized(ctx, `linkedin:me:${handle}`, () => person(ctx, handle, creds));

const postUrl = (urn: string) => `https://www.linkedin.com/feed/update/${urn}/`;

interface LinkedInPost {
  id?: string;
  commentary?: string;
  createdAt?: number;
  publishedAt?: number;
  lastModifiedAt?: number;
}

/**
 * One page of the author's posts (GET /rest/posts?q=author, `start` and `count`), newest first
 * (LinkedIn orders them by their last change), and the `start` of the next page, or null when this
 * one was the last (fewer than `count`).
 */
async function recent(
  ctx: AdapterContext,
  creds: Credentials,
  author: string,
  count: number,
  start = 0,
): Promise<{ posts: LinkedInPost[]; next: number | null }> {
  const q = new URLSearchParams({ author, q: 'author', count: String(count) });
  if (start > 0) q.set('start', String(start));
  const body = await sendJson<{ elements?: LinkedInPost[] }>(ctx, {
    url: `${base(ctx)}/rest/posts?${q}`,
    what: 'posts by author',
    authenticated: true,
    headers: headers(creds),
  });
  const posts = Array.isArray(body.elements) ? body.elements : [];
  return { posts, next: posts.length < count ? null : start + posts.length };
}

/** The little format back to the text as written. */
const unescapeLittle = (text: string) => text.replace(/\\([\\|{}@[\]()<>#*_~])/g, '$1');

export const linkedinAdapter: PlatformAdapter = {
  platform: 'linkedin',
  ingestLimit: 50,
  needsCredentials: true,
  maxParts: 1,
  normalizeHandle(handle) {
    const { name, sub } = parseHandle(handle);
    return sub !== null ? `urn:li:person:${sub}` : name!.toLowerCase();
  },
  async probe(ctx, handle, creds) {
    return { displayName: (await person(ctx, handle, creds)).name };
  },
  async listPosts(ctx, handle, creds, opts) {
    const me = await personOnce(ctx, handle, creds);
    const posts: FetchedPost[] = [];
    for (const p of (await recent(ctx, creds, me.urn, Math.min(100, opts.max))).posts) {
      const at = p.publishedAt ?? p.createdAt;
      if (typeof p.id !== 'string' || typeof p.commentary !== 'string' || typeof at !== 'number') continue;
      posts.push({
        externalId: p.id,
        url: postUrl(p.id),
        text: unescapeLittle(p.commentary),
        publishedAt: new Date(at),
        metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0 },
      });
    }
    return { posts, withdrawn: [] };
  },
  refusesText: refusesTextBy(linkedinCounting),
  async publish(ctx, handle, creds, part) {
    if (part.replyTo) throw new AdapterError('rejected', 'linkedin has no threads: a post cannot answer another');
    const me = await personOnce(ctx, handle, creds);
    const commentary = escapeLittle(part.text);
    const images = part.media && 'images' in part.media ? part.media.images : [];
    const content =
      images.length === 1
        ? { media: { id: images[0]!.id, ...(images[0]!.altText ? { altText: images[0]!.altText } : {}) } }
        : images.length > 1
          ? { multiImage: { images: images.map((i) => ({ id: i.id, ...(i.altText ? { altText: i.altText } : {}) })) } }
          : null;
    // The author's posts made since the attempt, page after page (`start`): the one with this
    // commentary. They come by their last change, which is never before their creation, so a post
    // changed before the attempt began ends the read.
    const find = async (since: Date): Promise<Published | null> => {
      const found = await findInRecent<LinkedInPost>({
        since,
        page: async (cursor) => {
          const p = await recent(ctx, creds, me.urn, READBACK_PAGE_SIZE, cursor ? Number(cursor) : 0);
          return { items: p.posts, next: p.next === null ? null : String(p.next) };
        },
        postedAt: (p) => {
          const at = p.lastModifiedAt ?? p.publishedAt ?? p.createdAt;
          return typeof at === 'number' ? new Date(at) : null;
        },
        matches: (p) => typeof p.id === 'string' && p.commentary === commentary,
      });
      return found ? { externalId: found.id!, url: postUrl(found.id!), cid: null } : null;
    };
    return postOnce({
      mayExist: part.mayExist === true,
      since: part.attemptsSince,
      now: ctx.now,
      find,
      post: async () => {
        const what = 'POST /rest/posts';
        const res = await exchange(ctx, {
          url: `${base(ctx)}/rest/posts`,
          method: 'POST',
          what,
          ...jsonBody({
            author: me.urn,
            commentary,
            visibility: 'PUBLIC',
            distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
            ...(content ? { content } : {}),
            lifecycleState: 'PUBLISHED',
            isReshareDisabledByAuthor: false,
          }),
          headers: { ...headers(creds), 'content-type': 'application/json' },
        });
        if (res.status < 200 || res.status > 299) throw statusError(res, what, true, ctx.now);
        const urn = res.headers.get('x-restli-id');
        if (!urn) throw new AdapterError('invalid_response', `${what} answered without an x-restli-id header`, res.status);
        return { externalId: urn, url: postUrl(urn), cid: null };
      },
    });
  },
  async uploadImages(ctx, handle, creds, images) {
    const me = await personOnce(ctx, handle, creds);
    const out: Array<{ id: string; altText: string | null }> = [];
    for (const [i, img] of images.entries()) {
      const init = await sendJson<{ value?: { uploadUrl?: unknown; image?: unknown } }>(ctx, {
        url: `${base(ctx)}/rest/images?action=initializeUpload`,
        method: 'POST',
        what: `images initializeUpload (image ${i + 1})`,
        authenticated: true,
        ...jsonBody({ initializeUploadRequest: { owner: me.urn } }),
        headers: { ...headers(creds), 'content-type': 'application/json' },
      });
      const { uploadUrl, image } = init.value ?? {};
      if (typeof uploadUrl !== 'string' || typeof image !== 'string')
        throw new AdapterError('invalid_response', `images initializeUpload (image ${i + 1}) answered without uploadUrl and image`);
      await send(ctx, {
        url: uploadUrl,
        method: 'PUT',
        what: `image upload (image ${i + 1})`,
        authenticated: true,
        body: img.bytes,
        headers: { authorization: `Bearer ${creds.secret}`, 'content-type': img.contentType },
      });
      out.push({ id: image, altText: img.altText });
    }
    return { images: out };
  },
};
