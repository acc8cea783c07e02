// A fake of LinkedIn's versioned REST API (learn.microsoft.com/linkedin: "Sign In with LinkedIn
// using OpenID Connect" GET /v2/userinfo, the Posts API POST/GET /rest/posts, the Images API
// POST /rest/images?action=initializeUpload then PUT of the bytes, the "little" text format), on a
// real local HTTPS server. As LinkedIn does, a post's commentary is read in the little format: an
// escaped reserved character is that character, and the text is CUT at the first reserved
// character left unescaped (the silent truncation the docs warn of), so `state.posts[].text` is
// what people would see. Every /rest call must name a LinkedIn-Version (YYYYMM) and Rest.li 2.0.0.
// The author's posts page as Rest.li does: `start` and `count`, newest first.
// Started with `{ auth }` (the platform's authorization-server fake, oauth-fakes.ts), it also
// accepts the access tokens that fake issues by signing in, until they expire.
import { startFake, json, type Fake } from '../https-fake.js';
import { type ApiFakeOptions, authorizedBy, dropAfter, jsonOf, noFaults, pageOf, type PostFaults } from './common.js';

const RESERVED = '\\|{}@[]()<>#*_~';

/** What LinkedIn shows of a little-format commentary: escapes resolved, cut at the first unescaped reserved character. */
export function shownText(commentary: string): string {
  let out = '';
  for (let i = 0; i < commentary.length; i++) {
    const c = commentary[i]!;
    if (c === '\\' && i + 1 < commentary.length && RESERVED.includes(commentary[i + 1]!)) {
      out += commentary[i + 1];
      i += 1;
    } else if (RESERVED.includes(c)) return out;
    else out += c;
  }
  return out;
}

export interface LinkedInPost {
  id: string;
  author: string;
  /** The commentary as received (little format). */
  commentary: string;
  /** What people see. */
  text: string;
  content: unknown;
  createdAt: number;
}

export interface LinkedInState extends PostFaults {
  sub: string;
  name: string;
  token: string;
  posts: LinkedInPost[];
  postCalls: number;
  /** Images by URN: their bytes once PUT. */
  images: Map<string, { bytes: Buffer | null }>;
  /** The LinkedIn-Version of every /rest call. */
  versions: string[];
  /** Each read of the author's posts (GET /rest/posts?q=author): its start and count. */
  postReads: Array<{ start: number; count: number }>;
}

const err = (status: number, code: string, message: string) => ({ status, code, message });

export async function startLinkedInFake(
  init: Partial<LinkedInState> = {},
  opts: ApiFakeOptions = {},
): Promise<{ fake: Fake; state: LinkedInState; env: Record<string, string>; handle: string }> {
  const user = opts.auth?.user;
  const state: LinkedInState = {
    sub: user?.id ?? 'yWk3vJ9Q2b',
    name: user?.name ?? 'Ada Lovelace',
    token: 'li-access-token-0123',
    posts: [],
    postCalls: 0,
    images: new Map(),
    versions: [],
    postReads: [],
    ...noFaults(),
    ...init,
  };
  let n = 7_100_000_000_000; // within Number.MAX_SAFE_INTEGER: ids stay distinct
  let fakeUrl = '';
  const authed = authorizedBy(state, opts.auth);
  const unauthorized = {
    status: 401,
    serviceErrorCode: 65601,
    code: 'REVOKED_ACCESS_TOKEN',
    message: 'The token used in the request has been revoked by the user',
  };
  /** A /rest call's protocol headers, or the refusal LinkedIn answers without them. */
  const badProtocol = (req: { headers: Record<string, unknown> }) => {
    const said = req.headers['linkedin-version'];
    const v = typeof said === 'string' ? said : '';
    state.versions.push(v);
    if (!/^\d{6}(\.\d{2})?$/.test(v))
      return err(400, 'VERSION_MISSING', 'A version must be present. Please specify a version by adding the LinkedIn-Version header.');
    if (req.headers['x-restli-protocol-version'] !== '2.0.0') return err(400, 'ILLEGAL_ARGUMENT', 'Rest.li protocol version 2.0.0 is required');
    return null;
  };
  const fake = await startFake({
    tls: true,
    routes: {
      'GET /v2/userinfo': (req, res) => {
        if (!authed(req)) return json(res, 401, unauthorized);
        json(res, 200, {
          sub: state.sub,
          name: state.name,
          given_name: state.name.split(' ')[0],
          family_name: state.name.split(' ').slice(1).join(' '),
          locale: { country: 'GB', language: 'en' },
        });
      },
      'GET /rest/posts': (req, res) => {
        if (!authed(req)) return json(res, 401, unauthorized);
        const bad = badProtocol(req);
        if (bad) return json(res, bad.status, bad);
        const q = new URL(req.url ?? '/', 'https://x').searchParams;
        if (q.get('q') !== 'author' || !q.get('author')) return json(res, 400, err(400, 'ILLEGAL_ARGUMENT', 'q=author and author are required'));
        // Rest.li paging: `start` (0 first) and `count` (at most 100), newest first.
        const count = Math.min(100, Number(q.get('count') ?? 10));
        const start = Number(q.get('start') ?? 0);
        if (!Number.isInteger(count) || count < 1 || !Number.isInteger(start) || start < 0)
          return json(res, 400, err(400, 'ILLEGAL_ARGUMENT', 'start and count must be non-negative integers, count at least 1'));
        const mine = state.posts.filter((p) => p.author === q.get('author')).reverse();
        const { page, next } = pageOf(mine, start, count);
        state.postReads.push({ start, count });
        const elements = page.map((p) => ({
          id: p.id,
          author: p.author,
          commentary: p.commentary,
          visibility: 'PUBLIC',
          lifecycleState: 'PUBLISHED',
          createdAt: p.createdAt,
          publishedAt: p.createdAt,
          lastModifiedAt: p.createdAt,
        }));
        const author = encodeURIComponent(q.get('author')!);
        const links =
          next === null ? [] : [{ rel: 'next', type: 'application/json', href: `/rest/posts?q=author&author=${author}&start=${next}&count=${count}` }];
        json(res, 200, { paging: { start, count, total: mine.length, links }, elements });
      },
      'POST /rest/posts': (req, res, body) => {
        state.postCalls += 1;
        if (!authed(req)) return json(res, 401, unauthorized);
        const bad = badProtocol(req);
        if (bad) return json(res, bad.status, bad);
        if (state.rateLimitNext > 0) {
          state.rateLimitNext -= 1;
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(state.resetInSeconds) });
          return res.end(JSON.stringify(err(429, 'TOO_MANY_REQUESTS', 'Resource level throttle limit for calls to this resource is reached.')));
        }
        if (state.failNextPosts > 0) {
          state.failNextPosts -= 1;
          return json(res, 503, err(503, 'SERVICE_UNAVAILABLE', 'Service unavailable'));
        }
        const b = jsonOf<Record<string, unknown>>(body);
        if (!b) return json(res, 400, err(400, 'ILLEGAL_ARGUMENT', 'Request body could not be converted to data map'));
        const missing = ['author', 'commentary', 'visibility', 'distribution', 'lifecycleState'].filter((f) => b[f] === undefined);
        if (missing.length)
          return json(res, 422, {
            status: 422,
            message: missing.map((f) => `ERROR :: /${f} :: field is required but not found and has no default value`).join('\n'),
          });
        if (b.author !== `urn:li:person:${state.sub}`)
          return json(res, 403, err(403, 'ACCESS_DENIED', `Not enough permissions to post as ${String(b.author)}`));
        const dist = b.distribution as { feedDistribution?: unknown } | null;
        if (b.visibility !== 'PUBLIC' || dist?.feedDistribution !== 'MAIN_FEED' || b.lifecycleState !== 'PUBLISHED' || typeof b.commentary !== 'string')
          return json(res, 422, {
            status: 422,
            message: 'ERROR :: visibility, distribution.feedDistribution, lifecycleState or commentary has an unexpected value',
          });
        // The commentary's limit is 3,000 characters of the text as people see it (escapes resolved).
        if (shownText(b.commentary).length > 3000)
          return json(res, 422, { status: 422, message: 'ERROR :: /commentary :: length of the text exceeds the maximum of 3000 characters' });
        const content = b.content as { media?: { id?: string }; multiImage?: { images?: Array<{ id?: string }> } } | undefined;
        const ids = content?.media ? [content.media.id] : (content?.multiImage?.images ?? []).map((i) => i.id);
        if (ids.some((id) => !id || !state.images.get(id)?.bytes))
          return json(res, 400, err(400, 'ILLEGAL_ARGUMENT', 'content references an image that is not uploaded'));
        n += 1;
        const post: LinkedInPost = {
          id: `urn:li:share:${n}`,
          author: b.author,
          commentary: b.commentary,
          text: shownText(b.commentary),
          content: content ?? null,
          createdAt: Date.now(),
        };
        state.posts.push(post);
        const meanwhile = (others: number) => {
          for (let i = 1; i <= others; i++) {
            n += 1;
            const commentary = `Posted from another app meanwhile (${i})`;
            state.posts.push({ id: `urn:li:share:${n}`, author: post.author, commentary, text: commentary, content: null, createdAt: Date.now() });
          }
        };
        if (dropAfter(state, post.text, req, meanwhile)) return;
        res.writeHead(201, { 'x-restli-id': post.id, 'x-linkedin-id': post.id });
        res.end();
      },
      'POST /rest/images': (req, res, body) => {
        if (!authed(req)) return json(res, 401, unauthorized);
        const bad = badProtocol(req);
        if (bad) return json(res, bad.status, bad);
        if (new URL(req.url ?? '/', 'https://x').searchParams.get('action') !== 'initializeUpload')
          return json(res, 400, err(400, 'ILLEGAL_ARGUMENT', 'action=initializeUpload is required'));
        const b = jsonOf<{ initializeUploadRequest?: { owner?: unknown } }>(body);
        if (b?.initializeUploadRequest?.owner !== `urn:li:person:${state.sub}`) return json(res, 403, err(403, 'ACCESS_DENIED', 'owner must be the member'));
        n += 1;
        const urn = `urn:li:image:C4E${n}`;
        state.images.set(urn, { bytes: null });
        json(res, 200, { value: { uploadUrlExpiresAt: Date.now() + 3_600_000, uploadUrl: `${fakeUrl}/dms-uploads/${encodeURIComponent(urn)}`, image: urn } });
      },
      'PUT /dms-uploads/:urn': (req, res, body, p) => {
        if (!authed(req)) return json(res, 401, unauthorized);
        const img = state.images.get(p.urn!);
        if (!img) return json(res, 404, err(404, 'NOT_FOUND', 'upload not found'));
        img.bytes = Buffer.from(body);
        res.writeHead(201);
        res.end();
      },
    },
  });
  fakeUrl = fake.url;
  return { fake, state, env: { LINKEDIN_API_BASE_URL: fake.url }, handle: 'ada-lovelace' };
}
