// A fake of Meta's Threads API (developers.facebook.com/docs/threads: GET /me, "Posts" POST
// /{user-id}/threads then POST /{user-id}/threads_publish, "Replies" reply_to_id, "Retrieve
// posts" GET /{user-id}/threads, the publishing limit GET /{user-id}/threads_publishing_limit),
// on a real local HTTPS server, with the Graph API's error shape (an OAuthException 190 for an
// expired token), the 250-posts-a-day quota, and the connection dropped after a publish. The
// account's posts page as the Graph API's do: `limit`, `paging.cursors.after` given back as `after`,
// and `paging.next` only while more remain.
// Started with `{ auth }` (the platform's authorization-server fake, oauth-fakes.ts), it also
// accepts the access tokens that fake issues by signing in, until they expire.
import { startFake, json, type Fake } from '../https-fake.js';
import { type ApiFakeOptions, authorizedBy, dropAfter, noFaults, pageOf, paramsOf, type PostFaults } from './common.js';

export interface ThreadsImage {
  url: string;
  contentType: string;
  bytes: Buffer;
  altText: string | null;
}

export interface ThreadsPost {
  id: string;
  text: string;
  replyTo: string | null;
  mediaType: string;
  images: ThreadsImage[];
  permalink: string;
  timestamp: string;
}

export interface ThreadsState extends PostFaults {
  userId: string;
  username: string;
  token: string;
  posts: ThreadsPost[];
  /** Containers made (POST /{user-id}/threads), by id. */
  containers: Map<string, { text: string; replyTo: string | null; mediaType: string; published: boolean; carouselItem: boolean; images: ThreadsImage[] }>;
  publishCalls: number;
  /** Posts published through the API in the last 24 hours, before `posts` (the quota's usage). */
  quotaUsage: number;
  quotaTotal: number;
  /** Each read of the account's posts (GET /{user-id}/threads): its limit and after cursor. */
  postReads: Array<{ limit: number; after: string | null }>;
}

const graphError = (message: string, code: number, extra: Record<string, unknown> = {}) => ({
  error: { message, type: 'OAuthException', code, fbtrace_id: 'AbCdEf', ...extra },
});

export async function startThreadsFake(
  init: Partial<ThreadsState> = {},
  opts: ApiFakeOptions = {},
): Promise<{ fake: Fake; state: ThreadsState; env: Record<string, string>; handle: string }> {
  const user = opts.auth?.user;
  const state: ThreadsState = {
    userId: user?.id ?? '17841400000000001',
    username: user?.username ?? 'ada.writes',
    token: 'threads-access-token-0123',
    posts: [],
    containers: new Map(),
    publishCalls: 0,
    quotaUsage: 0,
    quotaTotal: 250,
    postReads: [],
    ...noFaults(),
    ...init,
  };
  let n = 18_000_000_000_000; // within Number.MAX_SAFE_INTEGER: ids stay distinct
  const authed = authorizedBy(state, opts.auth);
  const expired = graphError('Error validating access token: Session has expired.', 190, { error_subcode: 463 });
  const fake = await startFake({
    tls: true,
    routes: {
      'GET /v1.0/me': (req, res) => {
        if (!authed(req)) return json(res, 401, expired);
        json(res, 200, { id: state.userId, username: state.username });
      },
      'GET /v1.0/:uid/threads_publishing_limit': (req, res, _b, p) => {
        if (!authed(req)) return json(res, 401, expired);
        if (p.uid !== state.userId) return json(res, 400, graphError('Unsupported get request.', 100));
        json(res, 200, { data: [{ quota_usage: state.quotaUsage + state.posts.length, config: { quota_total: state.quotaTotal, quota_duration: 86400 } }] });
      },
      'GET /v1.0/:uid/threads': (req, res, _b, p) => {
        if (!authed(req)) return json(res, 401, expired);
        if (p.uid !== state.userId) return json(res, 400, graphError('Unsupported get request.', 100));
        // Cursor paging: `limit` per page, `paging.cursors.after` given back as `after`, `paging.next` only while more remain.
        const q = new URL(req.url ?? '/', 'https://x').searchParams;
        const limit = Number(q.get('limit') ?? 25);
        const after = q.get('after');
        const offset =
          after === null
            ? 0
            : Number(
                Buffer.from(after, 'base64url')
                  .toString('utf8')
                  .replace(/^offset:/, '') || NaN,
              );
        if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(offset) || offset < 0)
          return json(res, 400, graphError('Invalid parameter: limit or after', 100));
        const { page, next } = pageOf([...state.posts].reverse(), offset, limit);
        state.postReads.push({ limit, after });
        const data = page.map((t) => ({
          id: t.id,
          text: t.text,
          permalink: t.permalink,
          timestamp: t.timestamp,
          media_type: 'TEXT_POST',
          ...(t.replyTo ? { replied_to: { id: t.replyTo } } : {}),
        }));
        const cursor = (o: number) => Buffer.from(`offset:${o}`).toString('base64url');
        const paging = {
          cursors: { before: cursor(offset), after: cursor(offset + page.length) },
          ...(next !== null ? { next: `${fake.url}/v1.0/${state.userId}/threads?limit=${limit}&after=${cursor(next)}` } : {}),
        };
        json(res, 200, { data, paging });
      },
      'POST /v1.0/:uid/threads': async (req, res, body, p) => {
        if (!authed(req)) return json(res, 401, expired);
        if (p.uid !== state.userId) return json(res, 400, graphError('Unsupported post request.', 100));
        const q = paramsOf(req, body);
        if (!['TEXT', 'IMAGE', 'CAROUSEL'].includes(q.media_type ?? ''))
          return json(res, 400, graphError('The parameter media_type is required and must be TEXT, IMAGE, VIDEO or CAROUSEL.', 100));
        if (q.media_type === 'TEXT' && !q.text) return json(res, 400, graphError('The parameter text is required for TEXT posts.', 100));
        if (q.reply_to_id && !state.posts.some((t) => t.id === q.reply_to_id))
          return json(res, 400, graphError('The post you are replying to does not exist.', 100));
        const images: ThreadsImage[] = [];
        if (q.media_type === 'IMAGE') {
          // Threads fetches the image from its address, as a public server answers it.
          if (!q.image_url) return json(res, 400, graphError('The parameter image_url is required for IMAGE posts.', 100));
          const got = await fetch(q.image_url).catch(() => null);
          const type = got?.headers.get('content-type') ?? '';
          if (!got || got.status !== 200 || !/^image\/(jpeg|png)$/.test(type))
            return json(
              res,
              400,
              graphError(`The image could not be fetched from image_url (${got?.status ?? 'no answer'} ${type}).`, 100, { error_subcode: 2207052 }),
            );
          images.push({ url: q.image_url, contentType: type, bytes: Buffer.from(await got.arrayBuffer()), altText: q.alt_text ?? null });
        }
        if (q.media_type === 'CAROUSEL') {
          const kids = (q.children ?? '').split(',').map((c) => state.containers.get(c));
          if (kids.length < 2 || kids.some((k) => !k?.carouselItem))
            return json(res, 400, graphError('A carousel needs 2 to 20 carousel item containers in children.', 100));
          for (const k of kids) images.push(...k!.images);
        }
        n += 1;
        const id = String(n);
        state.containers.set(id, {
          text: q.text ?? '',
          replyTo: q.reply_to_id ?? null,
          mediaType: q.media_type!,
          published: false,
          carouselItem: q.is_carousel_item === 'true',
          images,
        });
        json(res, 200, { id });
      },
      'POST /v1.0/:uid/threads_publish': (req, res, body, p) => {
        state.publishCalls += 1;
        if (!authed(req)) return json(res, 401, expired);
        if (p.uid !== state.userId) return json(res, 400, graphError('Unsupported post request.', 100));
        if (state.rateLimitNext > 0) {
          state.rateLimitNext -= 1;
          return json(res, 429, graphError('Application request limit reached', 4));
        }
        if (state.failNextPosts > 0) {
          state.failNextPosts -= 1;
          return json(res, 503, graphError('An unexpected error has occurred. Please retry your request later.', 2));
        }
        const c = state.containers.get(paramsOf(req, body).creation_id ?? '');
        if (!c || c.published || c.carouselItem) return json(res, 400, graphError('The media container does not exist or was already published.', 100));
        if (state.quotaUsage + state.posts.length >= state.quotaTotal)
          return json(res, 400, graphError('The user has reached the limit of posts published through the API in 24 hours.', 100));
        c.published = true;
        n += 1;
        const post: ThreadsPost = {
          id: String(n),
          text: c.text,
          replyTo: c.replyTo,
          mediaType: c.mediaType,
          images: c.images,
          permalink: `https://www.threads.net/@${state.username}/post/C${n.toString(36)}`,
          timestamp: new Date().toISOString(),
        };
        state.posts.push(post);
        const meanwhile = (others: number) => {
          for (let i = 1; i <= others; i++) {
            n += 1;
            const other = `Posted from another app meanwhile (${i})`;
            const permalink = `https://www.threads.net/@${state.username}/post/C${n.toString(36)}`;
            state.posts.push({ id: String(n), text: other, replyTo: null, mediaType: 'TEXT', images: [], permalink, timestamp: new Date().toISOString() });
          }
        };
        if (dropAfter(state, post.text, req, meanwhile)) return;
        json(res, 200, { id: post.id });
      },
      'GET /v1.0/:id': (req, res, _b, p) => {
        if (!authed(req)) return json(res, 401, expired);
        const post = state.posts.find((t) => t.id === p.id);
        if (!post) return json(res, 400, graphError(`Unsupported get request. Object with ID '${p.id}' does not exist.`, 100));
        json(res, 200, { id: post.id, permalink: post.permalink });
      },
    },
  });
  return { fake, state, env: { THREADS_API_BASE_URL: `${fake.url}/v1.0` }, handle: `@${state.username}` };
}
