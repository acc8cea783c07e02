// A fake of the X API v2 (docs.x.com: "Manage Posts" POST /2/tweets, "User lookup" GET
// /2/users/me, "Timelines" GET /2/users/{id}/tweets, "Media upload" POST /2/media/upload and
// POST /2/media/metadata), on a real local HTTPS server. Shapes and errors as the docs give them:
// a 401 problem for an expired token, the 403 "duplicate content" refusal, a 429 with
// x-rate-limit-limit/-remaining/-reset, and (a fault a test can ask for) the connection dropped
// after the post was made. Post texts come back as X returns them: `&`, `<`, `>` as entities. The
// timeline pages as X's does: `max_results` per page, `meta.next_token` while more remain, given
// back as `pagination_token`, and `start_time` for the oldest post.
// Started with `{ auth }` (the platform's authorization-server fake, oauth-fakes.ts), it also
// accepts the access tokens that fake issues by signing in, until they expire.
import { startFake, json, type Fake } from '../https-fake.js';
import { type ApiFakeOptions, authorizedBy, dropAfter, jsonOf, noFaults, pageOf, type PostFaults } from './common.js';

export interface XTweet {
  id: string;
  text: string;
  replyTo: string | null;
  mediaIds: string[];
  createdAt: string;
}

export interface XState extends PostFaults {
  userId: string;
  username: string;
  name: string;
  token: string;
  /** Posts made, oldest first, with their text as received. */
  tweets: XTweet[];
  /** POST /2/tweets calls received. */
  postCalls: number;
  media: Map<string, { bytes: Buffer; category: string; altText: string | null }>;
  /** Answer the next N reads of the timeline (GET /2/users/{id}/tweets) 503. */
  failNextReads: number;
  /** Each read of the timeline answered: its start_time and pagination_token. */
  timelineReads: Array<{ startTime: string | null; token: string | null }>;
}

const problem = (status: number, title: string, detail: string) => ({ title, type: 'about:blank', status, detail });
const escaped = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function startXFake(
  init: Partial<XState> = {},
  opts: ApiFakeOptions = {},
): Promise<{ fake: Fake; state: XState; env: Record<string, string>; handle: string }> {
  const user = opts.auth?.user;
  const state: XState = {
    userId: user?.id ?? '1849',
    username: user?.username ?? 'AdaWrites',
    name: user?.name ?? 'Ada',
    token: 'x-access-token-0123',
    tweets: [],
    postCalls: 0,
    media: new Map(),
    failNextReads: 0,
    timelineReads: [],
    ...noFaults(),
    ...init,
  };
  let next = 1_800_000_000_000_000_000n;
  const authed = authorizedBy(state, opts.auth);
  const fake = await startFake({
    tls: true,
    routes: {
      'GET /2/users/me': (req, res) => {
        if (!authed(req)) return json(res, 401, problem(401, 'Unauthorized', 'Unauthorized'));
        json(res, 200, { data: { id: state.userId, name: state.name, username: state.username } });
      },
      'GET /2/users/:id/tweets': (req, res, _body, p) => {
        if (!authed(req)) return json(res, 401, problem(401, 'Unauthorized', 'Unauthorized'));
        if (state.failNextReads > 0) {
          state.failNextReads -= 1;
          return json(res, 503, problem(503, 'Service Unavailable', 'Service Unavailable'));
        }
        if (p.id !== state.userId) return json(res, 404, problem(404, 'Not Found Error', `Could not find user with id: [${p.id}].`));
        const q = new URL(req.url ?? '/', 'https://x').searchParams;
        const max = Number(q.get('max_results') ?? 10);
        if (!Number.isInteger(max) || max < 5 || max > 100)
          return json(res, 400, problem(400, 'Invalid Request', 'The `max_results` query parameter value is not between 5 and 100'));
        // start_time: the oldest UTC timestamp (inclusive, to the second) of the posts given.
        const startTime = q.get('start_time');
        if (startTime !== null && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/.test(startTime))
          return json(res, 400, problem(400, 'Invalid Request', `The \`start_time\` query parameter value [${startTime}] is not a valid RFC 3339 date-time`));
        // pagination_token: the next_token of the page before (opaque to the caller).
        const token = q.get('pagination_token');
        const offset = token === null ? 0 : /^p(\d+)$/.test(token) ? Number(token.slice(1)) : -1;
        if (offset < 0) return json(res, 400, problem(400, 'Invalid Request', 'The `pagination_token` query parameter value is invalid'));
        const since = startTime === null ? -Infinity : Date.parse(startTime);
        const newestFirst = [...state.tweets].reverse().filter((t) => Date.parse(t.createdAt) >= since);
        const { page, next: nextOffset } = pageOf(newestFirst, offset, max);
        const data = page.map((t) => ({
          id: t.id,
          text: escaped(t.text),
          created_at: t.createdAt,
          edit_history_tweet_ids: [t.id],
          ...(t.replyTo ? { referenced_tweets: [{ type: 'replied_to', id: t.replyTo }] } : {}),
        }));
        state.timelineReads.push({ startTime, token });
        const meta = { result_count: data.length, ...(nextOffset !== null ? { next_token: `p${nextOffset}` } : {}) };
        json(res, 200, data.length ? { data, meta: { ...meta, newest_id: data[0]!.id, oldest_id: data.at(-1)!.id } } : { meta });
      },
      'POST /2/tweets': (req, res, body) => {
        state.postCalls += 1;
        if (!authed(req)) return json(res, 401, problem(401, 'Unauthorized', 'Unauthorized'));
        if (state.rateLimitNext > 0) {
          state.rateLimitNext -= 1;
          const reset = Math.floor(Date.now() / 1000) + state.resetInSeconds;
          res.writeHead(429, {
            'content-type': 'application/json',
            'x-rate-limit-limit': '100',
            'x-rate-limit-remaining': '0',
            'x-rate-limit-reset': String(reset),
          });
          return res.end(JSON.stringify(problem(429, 'Too Many Requests', 'Too Many Requests')));
        }
        if (state.failNextPosts > 0) {
          state.failNextPosts -= 1;
          return json(res, 503, problem(503, 'Service Unavailable', 'Service Unavailable'));
        }
        const b = jsonOf<{ text?: unknown; reply?: { in_reply_to_tweet_id?: unknown }; media?: { media_ids?: unknown } }>(body);
        if (!b || typeof b.text !== 'string')
          return json(res, 400, {
            errors: [{ message: '$.text: is missing' }],
            title: 'Invalid Request',
            detail: 'One or more parameters to your request was invalid.',
            type: 'https://api.twitter.com/2/problems/invalid-request',
          });
        const replyTo = b.reply?.in_reply_to_tweet_id;
        if (replyTo !== undefined && !state.tweets.some((t) => t.id === replyTo))
          return json(res, 400, problem(400, 'Invalid Request', 'The Tweet you are replying to is unavailable.'));
        const mediaIds = Array.isArray(b.media?.media_ids) ? (b.media.media_ids as string[]) : [];
        if (mediaIds.some((m) => !state.media.has(m))) return json(res, 400, problem(400, 'Invalid Request', 'Your media IDs are invalid.'));
        if (state.tweets.some((t) => t.text === b.text))
          return json(res, 403, problem(403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.'));
        next += 1n;
        const t: XTweet = {
          id: String(next),
          text: b.text,
          replyTo: typeof replyTo === 'string' ? replyTo : null,
          mediaIds,
          createdAt: new Date().toISOString(),
        };
        state.tweets.push(t);
        const meanwhile = (others: number) => {
          for (let i = 1; i <= others; i++) {
            next += 1n;
            state.tweets.push({
              id: String(next),
              text: `Posted from another app meanwhile (${i})`,
              replyTo: null,
              mediaIds: [],
              createdAt: new Date().toISOString(),
            });
          }
        };
        if (dropAfter(state, t.text, req, meanwhile)) return;
        json(res, 201, { data: { id: t.id, text: escaped(t.text), edit_history_tweet_ids: [t.id] } });
      },
      'POST /2/media/upload': (req, res, body) => {
        if (!authed(req)) return json(res, 401, problem(401, 'Unauthorized', 'Unauthorized'));
        const b = jsonOf<{ media?: unknown; media_category?: unknown }>(body);
        const bytes = typeof b?.media === 'string' ? Buffer.from(b.media, 'base64') : Buffer.alloc(0);
        if (bytes.length < 8) return json(res, 400, problem(400, 'Invalid Request', 'media: the media is missing or empty'));
        next += 1n;
        const id = String(next);
        state.media.set(id, { bytes, category: typeof b?.media_category === 'string' ? b.media_category : 'tweet_image', altText: null });
        json(res, 200, { data: { id, media_key: `3_${id}`, size: bytes.length, expires_after_secs: 86400 } });
      },
      'POST /2/media/metadata': (req, res, body) => {
        if (!authed(req)) return json(res, 401, problem(401, 'Unauthorized', 'Unauthorized'));
        const b = jsonOf<{ id?: unknown; metadata?: { alt_text?: { text?: unknown } } }>(body);
        const m = typeof b?.id === 'string' ? state.media.get(b.id) : undefined;
        const alt = b?.metadata?.alt_text?.text;
        if (!m || typeof alt !== 'string' || alt.length > 1000)
          return json(res, 400, problem(400, 'Invalid Request', 'id or metadata.alt_text.text is invalid'));
        m.altText = alt;
        json(res, 200, { data: { associated_metadata: true, alt_text: { text: alt } } });
      },
    },
  });
  return { fake, state, env: { X_API_BASE_URL: fake.url }, handle: `@${state.username}` };
}
