// Threads (Meta's Threads API at THREADS_API_BASE_URL, default https://graph.threads.net/v1.0).
// The handle is `@username`; the credential is a Threads access token (`threads_basic
// threads_content_publish`). A post is two calls: a media container (POST /{user-id}/threads,
// `media_type` TEXT, IMAGE with its `image_url`, or CAROUSEL of IMAGE items; `reply_to_id` for
// the next part of a thread), then POST
// /{user-id}/threads_publish with its `creation_id`; the post's address is its `permalink`.
// Threads fetches images itself, from the service's public address (PUBLIC_BASE_URL, GET
// /api/media-public/{token}); without one, a publish with images is refused at the request. The
// 250 posts a day (`threads_publishing_limit`) are checked when a publish is requested. Threads
// takes no idempotency key: after an unknown outcome the account's posts since the attempt (GET
// /{user-id}/threads, page after page by the `after` cursor) are read back and the one with the
// part's text (and parent) adopted.
// Counting: ./counting.ts (500 characters, an emoji counts its UTF-8 bytes). Fake: test/support/fakes/threads.ts.
import { AdapterError, type AdapterContext, type Credentials, type FetchedPost, type PlatformAdapter, type Published } from '../../adapters/types.js';
import { memoized, sendJson } from '../../adapters/http.js';
import { dateOf } from '../../adapters/text.js';
import { refusesTextBy } from '../counting.js';
import { threadsCounting } from './counting.js';
import { findInRecent, postOnce, READBACK_PAGE_SIZE } from '../readback.js';

const HANDLE = /^@?([A-Za-z0-9._]{1,30})$/;

const base = (ctx: AdapterContext) => ctx.config.threadsApiBaseUrl;
const auth = (creds: Credentials) => ({ authorization: `Bearer ${creds.secret}` });

function username(handle: string): string {
  const m = HANDLE.exec(handle.trim());
  if (!m) throw new AdapterError('invalid_input', 'a threads handle is @username: letters, digits, periods and underscores, at most 30', null, 'handle');
  return m[1]!;
}

async function me(ctx: AdapterContext, handle: string, creds: Credentials): Promise<{ id: string; username: string }> {
  const user = username(handle);
  if (!creds.secret) throw new AdapterError('credential_rejected', 'a threads account needs an access token in auth_material');
  const body = await sendJson<{ id?: unknown; username?: unknown }>(ctx, {
    url: `${base(ctx)}/me?fields=id,username`,
    what: 'me',
    authenticated: true,
    headers: auth(creds),
  });
  if (typeof body.id !== 'string' || typeof body.username !== 'string') throw new AdapterError('invalid_response', 'me answered without id and username');
  if (body.username.toLowerCase() !== user.toLowerCase()) throw new AdapterError('credential_rejected', `the token belongs to @${body.username}, not @${user}`);
  return { id: body.id, username: body.username };
}

const meOnce = (ctx: AdapterContext, handle: string, creds: Credentials) => memoized(ctx, `threads:me:${handle}`, () => me(ctx, handle, creds));

interface ThreadsPost {
  id?: string;
  text?: string;
  permalink?: string;
  timestamp?: string;
  replied_to?: { id?: string } | null;
}

/**
 * One page of the account's posts (GET /{user-id}/threads), newest first, and the `after` cursor of
 * the next one: the Graph API gives `paging.next` only when there is a next page.
 */
async function recent(
  ctx: AdapterContext,
  creds: Credentials,
  userId: string,
  limit: number,
  after?: string | null,
): Promise<{ posts: ThreadsPost[]; next: string | null }> {
  const q = new URLSearchParams({ fields: 'id,text,permalink,timestamp,replied_to', limit: String(limit) });
  if (after) q.set('after', after);
  const body = await sendJson<{ data?: ThreadsPost[]; paging?: { next?: unknown; cursors?: { after?: unknown } } }>(ctx, {
    url: `${base(ctx)}/${encodeURIComponent(userId)}/threads?${q}`,
    what: 'threads',
    authenticated: true,
    headers: auth(creds),
  });
  const cursor = body.paging?.cursors?.after;
  return { posts: Array.isArray(body.data) ? body.data : [], next: body.paging?.next && typeof cursor === 'string' ? cursor : null };
}

/** A form body (the Graph API takes its parameters as a form). */
const form = (fields: Record<string, string>) => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

export const threadsAdapter: PlatformAdapter = {
  platform: 'threads',
  ingestLimit: 100,
  needsCredentials: true,
  normalizeHandle: (handle) => `@${username(handle).toLowerCase()}`,
  async probe(ctx, handle, creds) {
    const who = await me(ctx, handle, creds);
    return { displayName: `@${who.username}` };
  },
  async listPosts(ctx, handle, creds, opts) {
    const who = await meOnce(ctx, handle, creds);
    const posts: FetchedPost[] = [];
    for (const p of (await recent(ctx, creds, who.id, Math.min(100, opts.max))).posts) {
      const publishedAt = dateOf(p.timestamp);
      if (typeof p.id !== 'string' || typeof p.text !== 'string' || !publishedAt || p.replied_to) continue;
      posts.push({ externalId: p.id, url: p.permalink ?? null, text: p.text, publishedAt, metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0 } });
    }
    return { posts, withdrawn: [] };
  },
  refusesText: refusesTextBy(threadsCounting),
  async refusesPublish(ctx, handle, creds, q) {
    if (q.images > 0 && !ctx.config.publicBaseUrl)
      return "Threads fetches a post's images from a public address, and this service has none: set PUBLIC_BASE_URL to the https address at which the service is reachable from the internet (its images are then served at PUBLIC_BASE_URL/api/media-public/{token}), or remove the images (PUT /artifacts/{id}/media) to publish the text alone.";
    // The 250 posts a day (a rolling 24 hours) of a profile, checked now rather than at publish time.
    const who = await meOnce(ctx, handle, creds);
    const limit = await sendJson<{ data?: Array<{ quota_usage?: unknown; config?: { quota_total?: unknown; quota_duration?: unknown } }> }>(ctx, {
      url: `${base(ctx)}/${encodeURIComponent(who.id)}/threads_publishing_limit?fields=quota_usage,config`,
      what: 'threads_publishing_limit',
      authenticated: true,
      headers: auth(creds),
    });
    const row = limit.data?.[0];
    const used = typeof row?.quota_usage === 'number' ? row.quota_usage : 0;
    const total = typeof row?.config?.quota_total === 'number' ? row.config.quota_total : 250;
    if (used + q.parts.length > total)
      return `the account has published ${used} of its ${total} posts of the last 24 hours through the API, and this thread needs ${q.parts.length}; publish it later (or schedule it for when the quota has room).`;
    return null;
  },
  async uploadImages(_ctx, _handle, _creds, images) {
    // Nothing is uploaded: Threads fetches each image from its public address when the container is made.
    const missing = images.findIndex((i) => !i.publicUrl);
    if (missing !== -1)
      throw new AdapterError(
        'rejected',
        `image ${missing + 1} has no public address for Threads to fetch it from: set PUBLIC_BASE_URL (the service's https address on the internet)`,
      );
    return { images: images.map((i) => ({ id: i.publicUrl!, altText: i.altText })) };
  },
  async publish(ctx, handle, creds, part) {
    const who = await meOnce(ctx, handle, creds);
    const parent = part.replyTo?.parent.externalId ?? null;
    // The account's posts made since the attempt, page after page (`after`): the one with this text and parent.
    const find = async (since: Date): Promise<Published | null> => {
      const found = await findInRecent<ThreadsPost>({
        since,
        page: async (cursor) => {
          const p = await recent(ctx, creds, who.id, READBACK_PAGE_SIZE, cursor);
          return { items: p.posts, next: p.next };
        },
        postedAt: (p) => dateOf(p.timestamp),
        matches: (p) => typeof p.id === 'string' && p.text === part.text && (p.replied_to?.id ?? null) === parent,
      });
      return found ? { externalId: found.id!, url: found.permalink ?? null, cid: null } : null;
    };
    return postOnce({
      mayExist: part.mayExist === true,
      since: part.attemptsSince,
      now: ctx.now,
      find,
      post: async () => {
        const container = (what: string, fields: Record<string, string>) =>
          sendJson<{ id?: unknown }>(ctx, {
            url: `${base(ctx)}/${encodeURIComponent(who.id)}/threads`,
            method: 'POST',
            what,
            authenticated: true,
            ...form(fields),
            headers: { ...auth(creds), 'content-type': 'application/x-www-form-urlencoded' },
          }).then((c) => {
            if (typeof c.id !== 'string') throw new AdapterError('invalid_response', `${what} answered without a container id`);
            return c.id;
          });
        // Images by their public address (Threads fetches them): one is an IMAGE post, several a CAROUSEL of IMAGE items.
        const images = part.media && 'images' in part.media ? part.media.images : [];
        const image = (i: { id: string; altText: string | null }): Record<string, string> => ({
          media_type: 'IMAGE',
          image_url: i.id,
          ...(i.altText ? { alt_text: i.altText } : {}),
        });
        const reply: Record<string, string> = parent ? { reply_to_id: parent } : {};
        let creationId: string;
        if (images.length > 1) {
          const children: string[] = [];
          for (const [n, i] of images.entries()) children.push(await container(`threads (carousel item ${n + 1})`, { ...image(i), is_carousel_item: 'true' }));
          creationId = await container('threads (carousel)', { media_type: 'CAROUSEL', children: children.join(','), text: part.text, ...reply });
        } else if (images.length === 1) creationId = await container('threads (container)', { ...image(images[0]!), text: part.text, ...reply });
        else creationId = await container('threads (container)', { media_type: 'TEXT', text: part.text, ...reply });
        const made = await sendJson<{ id?: unknown }>(ctx, {
          url: `${base(ctx)}/${encodeURIComponent(who.id)}/threads_publish`,
          method: 'POST',
          what: 'threads_publish',
          authenticated: true,
          ...form({ creation_id: creationId }),
          headers: { ...auth(creds), 'content-type': 'application/x-www-form-urlencoded' },
        });
        if (typeof made.id !== 'string') throw new AdapterError('invalid_response', 'threads_publish answered without a post id');
        // The address people open: the post's permalink (one more read; the id alone has none).
        const link = await sendJson<{ permalink?: unknown }>(ctx, {
          url: `${base(ctx)}/${encodeURIComponent(made.id)}?fields=permalink`,
          what: 'post permalink',
          authenticated: true,
          headers: auth(creds),
        }).catch(() => ({ permalink: null }));
        return { externalId: made.id, url: typeof link.permalink === 'string' ? link.permalink : null, cid: null };
      },
    });
  },
};
