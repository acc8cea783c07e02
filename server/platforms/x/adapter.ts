// X (the API v2 at X_API_BASE_URL, default https://api.x.com). The handle is `@username`; the
// credential is an OAuth 2.0 user access token (scopes tweet.read tweet.write users.read
// media.write; offline.access to be refreshed) — `Credentials.secret` is the current one,
// whatever obtained it. A post is POST /2/tweets; a thread is a reply chain
// (`reply.in_reply_to_tweet_id`); images go through POST /2/media/upload, their alt text through
// POST /2/media/metadata. X takes no idempotency key: after an unknown outcome the account's posts
// since the attempt (GET /2/users/{id}/tweets with start_time, page after page by
// pagination_token) are read back and the one with the part's text and parent is adopted
// (server/platforms/readback.ts); a 403 for duplicate content is the same post found the
// same way, or a refusal that says so; a 429 retries after `x-rate-limit-reset`.
// Counting: ./counting.ts (twitter-text). Fake: test/support/fakes/x.ts.
import { AdapterError, type AdapterContext, type Credentials, type FetchedPost, type PlatformAdapter, type Published } from '../../adapters/types.js';
import { exchange, jsonBody, memoized, readJson, sendJson, statusError } from '../../adapters/http.js';
import { dateOf } from '../../adapters/text.js';
import { refusesTextBy } from '../counting.js';
import { xCounting } from './counting.js';
import { findInRecent, postOnce, READBACK_PAGE_SIZE, READBACK_SKEW_MS } from '../readback.js';

const HANDLE = /^@?([A-Za-z0-9_]{1,15})$/;

interface Tweet {
  id: string;
  text: string;
  created_at?: string;
  referenced_tweets?: Array<{ type: string; id: string }>;
  entities?: { urls?: Array<{ url: string; expanded_url?: string }> };
  public_metrics?: { like_count?: number; retweet_count?: number; reply_count?: number; quote_count?: number };
}

const base = (ctx: AdapterContext) => ctx.config.xApiBaseUrl;
const auth = (creds: Credentials) => ({ authorization: `Bearer ${creds.secret}` });

function username(handle: string): string {
  const m = HANDLE.exec(handle.trim());
  if (!m) throw new AdapterError('invalid_input', 'an x handle is @username: 1 to 15 letters, digits or underscores', null, 'handle');
  return m[1]!;
}

/** The token's user, checked to be the handle's: we post with it in the handle's name. */
async function me(ctx: AdapterContext, handle: string, creds: Credentials): Promise<{ id: string; username: string; name: string }> {
  const user = username(handle);
  if (!creds.secret) throw new AdapterError('credential_rejected', 'an x account needs an OAuth access token in auth_material');
  const body = await sendJson<{ data?: { id?: string; username?: string; name?: string } }>(ctx, {
    url: `${base(ctx)}/2/users/me`,
    what: 'users/me',
    authenticated: true,
    headers: auth(creds),
  });
  const d = body.data;
  if (!d || typeof d.id !== 'string' || typeof d.username !== 'string') throw new AdapterError('invalid_response', 'users/me answered without a user');
  if (d.username.toLowerCase() !== user.toLowerCase()) throw new AdapterError('credential_rejected', `the token belongs to @${d.username}, not @${user}`);
  return { id: d.id, username: d.username, name: d.name ?? d.username };
}

const meOnce = (ctx: AdapterContext, handle: string, creds: Credentials) => memoized(ctx, `x:me:${handle}`, () => me(ctx, handle, creds));

/** X's text as written: t.co links back to their addresses, and the entities X escapes (&amp; &lt; &gt;) unescaped. */
export function writtenText(t: Pick<Tweet, 'text' | 'entities'>): string {
  let text = t.text;
  for (const u of t.entities?.urls ?? []) if (u.expanded_url) text = text.split(u.url).join(u.expanded_url);
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

const postUrl = (user: string, id: string) => `https://x.com/${user}/status/${id}`;

/** One page of the account's posts, newest first (GET /2/users/{id}/tweets), and the next page's token. */
async function timeline(
  ctx: AdapterContext,
  creds: Credentials,
  userId: string,
  q: { max: number; startTime?: Date; token?: string | null },
): Promise<{ tweets: Tweet[]; next: string | null }> {
  const params = new URLSearchParams({
    max_results: String(Math.max(5, Math.min(100, q.max))),
    'tweet.fields': 'created_at,referenced_tweets,entities,public_metrics',
  });
  // X takes start_time to the second (YYYY-MM-DDTHH:mm:ssZ), and the page's token as pagination_token.
  if (q.startTime) params.set('start_time', `${q.startTime.toISOString().slice(0, 19)}Z`);
  if (q.token) params.set('pagination_token', q.token);
  const body = await sendJson<{ data?: Tweet[]; meta?: { next_token?: unknown } }>(ctx, {
    url: `${base(ctx)}/2/users/${encodeURIComponent(userId)}/tweets?${params}`,
    what: 'users/tweets',
    authenticated: true,
    headers: auth(creds),
  });
  const tweets = Array.isArray(body.data) ? body.data.filter((t) => typeof t?.id === 'string' && typeof t.text === 'string') : [];
  return { tweets, next: typeof body.meta?.next_token === 'string' ? body.meta.next_token : null };
}

/**
 * The account's post that is this part (its text as written, the post it answers), made since
 * `since`: page after page (`pagination_token`), from `start_time` (the attempt's start, less the
 * clock skew allowed), as far as readback.ts allows.
 */
async function findPart(
  ctx: AdapterContext,
  creds: Credentials,
  who: { id: string; username: string },
  text: string,
  parent: string | null,
  since: Date,
): Promise<Published | null> {
  const startTime = new Date(since.getTime() - READBACK_SKEW_MS);
  const t = await findInRecent<Tweet>({
    since,
    page: async (token) => {
      const p = await timeline(ctx, creds, who.id, { max: READBACK_PAGE_SIZE, startTime, token });
      return { items: p.tweets, next: p.next };
    },
    postedAt: (tweet) => dateOf(tweet.created_at),
    matches: (tweet) => (tweet.referenced_tweets?.find((r) => r.type === 'replied_to')?.id ?? null) === parent && writtenText(tweet) === text,
  });
  return t ? { externalId: t.id, url: postUrl(who.username, t.id), cid: null } : null;
}

const DUPLICATE = /duplicate content/i;

export const xAdapter: PlatformAdapter = {
  platform: 'x',
  ingestLimit: 100,
  needsCredentials: true,
  normalizeHandle: (handle) => `@${username(handle).toLowerCase()}`,
  async probe(ctx, handle, creds) {
    const who = await me(ctx, handle, creds);
    return { displayName: who.name };
  },
  async listPosts(ctx, handle, creds, opts) {
    const who = await meOnce(ctx, handle, creds);
    const posts: FetchedPost[] = [];
    for (const t of (await timeline(ctx, creds, who.id, { max: opts.max })).tweets) {
      const publishedAt = dateOf(t.created_at);
      if (!publishedAt || t.referenced_tweets?.some((r) => r.type === 'retweeted')) continue;
      const m = t.public_metrics ?? {};
      posts.push({
        externalId: t.id,
        url: postUrl(who.username, t.id),
        text: writtenText(t),
        publishedAt,
        metrics: { likes: m.like_count ?? 0, reposts: m.retweet_count ?? 0, replies: m.reply_count ?? 0, quotes: m.quote_count ?? 0 },
      });
    }
    return { posts: posts.slice(0, opts.max), withdrawn: [] };
  },
  refusesText: refusesTextBy(xCounting),
  async publish(ctx, handle, creds, part) {
    const who = await meOnce(ctx, handle, creds);
    const parent = part.replyTo?.parent.externalId ?? null;
    const find = (since: Date) => findPart(ctx, creds, who, part.text, parent, since);
    return postOnce({
      mayExist: part.mayExist === true,
      since: part.attemptsSince,
      now: ctx.now,
      find,
      post: async () => {
        const what = 'POST /2/tweets';
        const res = await exchange(ctx, {
          url: `${base(ctx)}/2/tweets`,
          method: 'POST',
          what,
          ...jsonBody({
            text: part.text,
            ...(parent ? { reply: { in_reply_to_tweet_id: parent } } : {}),
            ...(part.media && 'mediaIds' in part.media ? { media: { media_ids: part.media.mediaIds } } : {}),
          }),
          headers: { ...auth(creds), 'content-type': 'application/json', accept: 'application/json' },
        });
        if (res.status === 403) {
          const said = readJson<{ detail?: unknown }>(res, what).detail;
          const detail = typeof said === 'string' ? said : '';
          if (DUPLICATE.test(detail)) {
            // X refuses the same text twice: the post is there already (ours, from an attempt that lost its answer), or it is another one.
            const found = await find(part.attemptsSince ?? ctx.now);
            if (found) return found;
            throw new AdapterError(
              'rejected',
              `x refused the post as duplicate content (${detail}); the account already has a recent post with this exact text. Change the text (PUT /artifacts/{id}/variants/x) to publish it.`,
              403,
            );
          }
        }
        if (res.status < 200 || res.status > 299) throw statusError(res, what, true, ctx.now);
        const made = readJson<{ data?: { id?: unknown } }>(res, what).data;
        if (!made || typeof made.id !== 'string') throw new AdapterError('invalid_response', `${what} answered without a post id`);
        return { externalId: made.id, url: postUrl(who.username, made.id), cid: null };
      },
    });
  },
  async uploadImages(ctx, handle, creds, images) {
    await meOnce(ctx, handle, creds);
    const ids: string[] = [];
    for (const [i, img] of images.entries()) {
      const made = await sendJson<{ data?: { id?: unknown } }>(ctx, {
        url: `${base(ctx)}/2/media/upload`,
        method: 'POST',
        what: `media upload (image ${i + 1})`,
        authenticated: true,
        // The JSON form of the upload: the bytes base64-encoded in `media`.
        ...jsonBody({
          media: img.bytes.toString('base64'),
          media_category: img.contentType === 'image/gif' ? 'tweet_gif' : 'tweet_image',
          media_type: img.contentType,
        }),
        headers: { ...auth(creds), 'content-type': 'application/json' },
      });
      const id = made.data?.id;
      if (typeof id !== 'string') throw new AdapterError('invalid_response', `media upload (image ${i + 1}) answered without a media id`);
      if (img.altText) {
        await sendJson(ctx, {
          url: `${base(ctx)}/2/media/metadata`,
          method: 'POST',
          what: `media metadata (image ${i + 1})`,
          authenticated: true,
          ...jsonBody({ id, metadata: { alt_text: { text: img.altText } } }),
          headers: { ...auth(creds), 'content-type': 'application/json' },
        });
      }
      ids.push(id);
    }
    return { mediaIds: ids };
  },
};
