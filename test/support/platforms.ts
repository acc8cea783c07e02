// Local fakes of the platforms' HTTP APIs, just the endpoints the adapters call, on real HTTPS
// servers (test/support/https-fake.ts). Each keeps its state in a plain object the test can read
// and change (posts, what was published, a failure mode).
import { createHash } from 'node:crypto';
import type http from 'node:http';
import net from 'node:net';
import { json, reply, startFake, type Fake } from './https-fake.js';
import {
  authorizePage,
  bearerValid,
  CONSENT_PATH,
  consentHandler,
  issueTokens,
  newAuthServerState,
  tokenEndpoint,
  type AuthServerState,
} from './oauth-server.js';

type Res = http.ServerResponse;

/** What every fake can be told to do instead of answering: fail the next N requests with a status. */
export interface FailureMode {
  failNext: number;
  failStatus: number;
}

function failing(state: FailureMode, res: Res): boolean {
  if (state.failNext <= 0) return false;
  state.failNext -= 1;
  json(res, state.failStatus, { error: `fake failure ${state.failStatus}` });
  return true;
}

/** When `text` contains `state.dropAnswerText`: drops the connection without an answer (the work done) and clears the mode. */
function dropLostAnswer(state: { dropAnswerText: string | null }, text: string, req: http.IncomingMessage): boolean {
  if (!state.dropAnswerText || !text.includes(state.dropAnswerText)) return false;
  state.dropAnswerText = null;
  req.socket.destroy();
  return true;
}

// ---- Mastodon ----

export interface FakeStatus {
  id: string;
  created_at: string;
  url: string;
  content: string;
  favourites_count: number;
  reblogs_count: number;
  replies_count: number;
  reblog?: unknown;
  /** Mastodon `MediaAttachment`s, served as given. */
  media_attachments?: unknown[];
  /** `public` (absent), `unlisted`, `private` (followers only) or `direct`: the owner's token sees them all. */
  visibility?: 'public' | 'unlisted' | 'private' | 'direct';
  /** The content warning ('' or absent: none). */
  spoiler_text?: string;
}

export interface MastodonState extends FailureMode {
  username: string;
  token: string;
  accountId: string;
  statuses: FakeStatus[];
  /** Statuses created through POST /api/v1/statuses, with the Idempotency-Key, the status they answer and their media. */
  posted: Array<{ id: string; text: string; idempotencyKey: string | undefined; inReplyToId: string | null; mediaIds?: string[]; spoilerText?: string }>;
  /** A status whose text contains this is refused with `refuseStatus` (a failure in the middle of a thread). */
  refuseText: string | null;
  refuseStatus: number;
  /** Set to answer 401 to every authenticated call (a revoked token). */
  revoked: boolean;
  /** A status whose text contains this is made, and then the connection is dropped before the answer (once: a lost answer). */
  dropAnswerText: string | null;
  /** Attachments made through POST /api/v2/media, by id, as the instance keeps them (alt text = `description`). */
  media: Map<string, { description: string | null; contentType: string; size: number; filename: string; bytes: Buffer; polls: number }>;
  /** How many GET /api/v1/media/:id answer 206 (still processing) before 200; 0 answers the upload 200 at once. */
  mediaProcessingPolls: number;
  /**
   * The instance's authorization server (POST /api/v1/apps, /oauth/authorize, /oauth/token): the
   * access tokens it issues (`oauth.accessTokens`, no expiry, as Mastodon's) are accepted by the
   * API below as `token` is, until `revoked`.
   */
  oauth: AuthServerState;
  /** Apps registered through POST /api/v1/apps. */
  appsRegistered: number;
}

export interface MastodonFake {
  fake: Fake;
  state: MastodonState;
  /** `@user@127.0.0.1:<port>` */
  handle: string;
}

export function mastodonStatus(n: number, over: Partial<FakeStatus> = {}): FakeStatus {
  return {
    id: String(1000 + n),
    created_at: new Date(Date.UTC(2026, 9, 1 + n, 9)).toISOString(),
    url: `https://mastodon.example/@ada/${1000 + n}`,
    content: `<p>Post ${n}: notes from the release train.</p>`,
    favourites_count: n * 3,
    reblogs_count: n,
    replies_count: n % 3,
    ...over,
  };
}

export async function startMastodonFake(init: Partial<MastodonState> = {}): Promise<MastodonFake> {
  const state: MastodonState = {
    username: 'ada',
    token: 'mastodon-token-0123456789',
    accountId: '109',
    statuses: [],
    posted: [],
    revoked: false,
    refuseText: null,
    refuseStatus: 422,
    dropAnswerText: null,
    media: new Map(),
    mediaProcessingPolls: 0,
    failNext: 0,
    failStatus: 503,
    oauth: newAuthServerState({ accessTtlSeconds: null, issueRefreshTokens: false }),
    appsRegistered: 0,
    ...init,
  };
  const keyed = new Map<string, FakeStatus>();
  // Mastodon's sign-in (docs.joinmastodon.org/methods/apps, /methods/oauth): each sign-in gets a token of its own for the account.
  const authorize = authorizePage(state.oauth, 'Mastodon');
  const consented = consentHandler(state.oauth);
  const tokens = tokenEndpoint(state.oauth, {
    clientAuth: 'body',
    issue: (scope) => ({
      access_token: issueTokens(state.oauth, scope, null, false).access_token,
      token_type: 'Bearer',
      scope,
      created_at: Math.floor(Date.now() / 1000),
    }),
  });
  const fake = await startFake({
    tls: true,
    handler: async (req, res, body) => {
      if (failing(state, res)) return;
      const url = new URL(req.url ?? '/', 'https://x');
      if (req.method === 'POST' && url.pathname === '/api/v1/apps') {
        const isJson = String(req.headers['content-type']).startsWith('application/json');
        const b = (isJson ? JSON.parse(body.toString('utf8')) : Object.fromEntries(new URLSearchParams(body.toString('utf8')))) as Record<string, string>;
        if (!b.client_name || !b.redirect_uris)
          return json(res, 422, { error: "Validation failed: Application name can't be blank, Redirect URI can't be blank" });
        state.appsRegistered += 1;
        const clientId = `client-${state.appsRegistered}`;
        const secret = `secret-${state.appsRegistered}-0123456789`;
        state.oauth.clients.set(clientId, { secret, redirectUris: b.redirect_uris.split(/\s+/) });
        return json(res, 200, {
          id: String(state.appsRegistered),
          name: b.client_name,
          redirect_uri: b.redirect_uris,
          client_id: clientId,
          client_secret: secret,
        });
      }
      if (req.method === 'GET' && url.pathname === '/oauth/authorize') return authorize(req, res, body, {});
      if (req.method === 'POST' && url.pathname === CONSENT_PATH) return consented(req, res, body, {});
      if (req.method === 'POST' && url.pathname === '/oauth/token') return tokens(req, res, body, {});
      const authed = (req.headers.authorization === `Bearer ${state.token}` || bearerValid(state.oauth, req)) && !state.revoked;
      if (!authed) return json(res, 401, { error: 'The access token is invalid' });
      if (req.method === 'GET' && url.pathname === '/api/v1/accounts/verify_credentials') {
        return json(res, 200, { id: state.accountId, username: state.username, acct: state.username, display_name: 'Ada' });
      }
      if (req.method === 'GET' && url.pathname === '/api/v1/accounts/lookup') {
        return url.searchParams.get('acct') === state.username
          ? json(res, 200, { id: state.accountId, username: state.username })
          : json(res, 404, { error: 'Record not found' });
      }
      const statuses = /^\/api\/v1\/accounts\/([^/]+)\/statuses$/.exec(url.pathname);
      if (req.method === 'GET' && statuses) {
        if (statuses[1] !== state.accountId) return json(res, 404, { error: 'Record not found' });
        const limit = Number(url.searchParams.get('limit') ?? 20);
        const maxId = url.searchParams.get('max_id');
        const sorted = [...state.statuses].sort((a, b) => Number(b.id) - Number(a.id));
        const page = sorted.filter((s) => !maxId || Number(s.id) < Number(maxId)).slice(0, limit);
        return json(res, 200, page);
      }
      if (req.method === 'POST' && url.pathname === '/api/v2/media') {
        // Parsed as a real server would: multipart/form-data with `file` and `description`.
        const form = await new Request('https://fake/', {
          method: 'POST',
          headers: { 'content-type': String(req.headers['content-type'] ?? '') },
          body: new Uint8Array(body),
        })
          .formData()
          .catch(() => null);
        const file = form?.get('file');
        if (!form || !(file instanceof Blob)) return json(res, 422, { error: 'Validation failed: File must be present' });
        const description = form.get('description');
        if (typeof description === 'string' && [...description].length > 1500)
          return json(res, 422, { error: 'Validation failed: Description is too long (maximum is 1500 characters)' });
        const id = String(7000 + state.media.size);
        const entry = {
          description: typeof description === 'string' ? description : null,
          contentType: file.type,
          size: file.size,
          filename: (file as File).name,
          bytes: Buffer.from(await file.arrayBuffer()),
          polls: 0,
        };
        state.media.set(id, entry);
        const processing = state.mediaProcessingPolls > 0;
        return json(res, processing ? 202 : 200, {
          id,
          type: 'image',
          url: processing ? null : `https://files.mastodon.example/media/${id}.jpg`,
          description: entry.description,
        });
      }
      const mediaGet = /^\/api\/v1\/media\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && mediaGet) {
        const m = state.media.get(mediaGet[1]!);
        if (!m) return json(res, 404, { error: 'Record not found' });
        m.polls += 1;
        const ready = m.polls > state.mediaProcessingPolls;
        return json(res, ready ? 200 : 206, {
          id: mediaGet[1],
          type: 'image',
          url: ready ? `https://files.mastodon.example/media/${mediaGet[1]}.jpg` : null,
          description: m.description,
        });
      }
      if (req.method === 'POST' && url.pathname === '/api/v1/statuses') {
        const key = req.headers['idempotency-key'] as string | undefined;
        const known = key ? keyed.get(key) : undefined;
        if (known) return json(res, 200, known);
        const b = JSON.parse(body.toString('utf8')) as { status?: string; in_reply_to_id?: string; media_ids?: string[]; spoiler_text?: string };
        const mediaIds = b.media_ids ?? [];
        if (mediaIds.length > 4 || mediaIds.some((m) => !state.media.has(m)))
          return json(res, 422, { error: 'Validation failed: media_ids are unknown or more than 4' });
        const text = String(b.status ?? '');
        // Mastodon's StatusLengthValidator: the content warning and the text together, at most 500
        // grapheme clusters, a URL counted as 23 (approximated here: any http(s) run).
        const counted = `${b.spoiler_text ?? ''}${text.replace(/https?:\/\/\S+/g, 'x'.repeat(23))}`;
        if ([...new Intl.Segmenter().segment(counted)].length > 500)
          return json(res, 422, { error: 'Validation failed: Text character limit of 500 exceeded' });
        if (state.refuseText && text.includes(state.refuseText)) return json(res, state.refuseStatus, { error: `fake refusal ${state.refuseStatus}` });
        const inReplyToId = b.in_reply_to_id ?? null;
        if (inReplyToId && !state.posted.some((p) => p.id === inReplyToId)) return json(res, 404, { error: 'Record not found' });
        const id = String(900000 + state.posted.length);
        const status = {
          ...mastodonStatus(0),
          id,
          url: `https://mastodon.example/@${state.username}/${id}`,
          content: `<p>${text}</p>`,
          in_reply_to_id: inReplyToId,
        };
        state.posted.push({
          id,
          text,
          idempotencyKey: key,
          inReplyToId,
          ...(mediaIds.length ? { mediaIds } : {}),
          ...(b.spoiler_text ? { spoilerText: b.spoiler_text } : {}),
        });
        if (key) keyed.set(key, status);
        if (dropLostAnswer(state, text, req)) return;
        return json(res, 200, status);
      }
      json(res, 404, { error: 'Not found' });
    },
  });
  return { fake, state, handle: `@${state.username}@${fake.host}` };
}

// ---- Bluesky ----

export interface FakeBskyPost {
  rkey: string;
  text: string;
  createdAt: string;
  likeCount: number;
  repostCount: number;
  replyCount: number;
  quoteCount: number;
  /** A repost of someone else's post (must not be ingested). */
  repost?: boolean;
  /** The post's embed view (e.g. app.bsky.embed.images#view), served as given. */
  embed?: unknown;
}

export interface BlueskyState extends FailureMode {
  handle: string;
  did: string;
  appPassword: string;
  posts: FakeBskyPost[];
  /** Records created through createRecord, by record key (with their reply references when replies, and the embed, whose images' `alt` the fake checks). */
  records: Map<
    string,
    { text: string; reply?: { root: { uri: string; cid: string }; parent: { uri: string; cid: string } }; embed?: unknown; facets?: BskyFacet[] }
  >;
  /** Other accounts' handles com.atproto.identity.resolveHandle knows, with their DIDs (the account's own handle resolves too). */
  handles: Map<string, string>;
  /** Every handle asked of resolveHandle, in order. */
  resolved: string[];
  createCalls: number;
  /** A record whose text contains this is refused with `refuseStatus` (a failure in the middle of a thread). */
  refuseText: string | null;
  refuseStatus: number;
  /** A record whose text contains this is created, and then the connection is dropped before the answer (once: a lost answer). */
  dropAnswerText: string | null;
  /** The next this many createRecord calls answer 503 (a PDS that is down for a moment). */
  failCreates: number;
  /** Blobs uploaded through uploadBlob, by CID. */
  blobs: Map<string, { mimeType: string; size: number; bytes: Buffer }>;
}

type BskyFacet = { index?: { byteStart?: unknown; byteEnd?: unknown }; features?: Array<{ $type?: string; uri?: unknown; did?: unknown; tag?: unknown }> };

/**
 * What the fake checks of a record's facets, as the AppView needs them to render: byte ranges
 * (UTF-8) inside the text, on character boundaries, and each feature matching the text it covers —
 * a link's text is its URI (without the scheme if the text has none), a mention's is `@` and the
 * handle of the DID, a tag's is `#` and the tag.
 */
function invalidFacets(text: string, facets: BskyFacet[] | undefined, didOf: (handle: string) => string | undefined): string | null {
  if (facets === undefined) return null;
  if (!Array.isArray(facets)) return 'facets must be an array';
  const bytes = Buffer.from(text, 'utf8');
  const strict = new TextDecoder('utf-8', { fatal: true });
  let last = 0;
  for (const [i, f] of facets.entries()) {
    const { byteStart, byteEnd } = f.index ?? {};
    if (!Number.isInteger(byteStart) || !Number.isInteger(byteEnd)) return `facets/${i}/index must have integer byteStart and byteEnd`;
    const [a, b] = [byteStart as number, byteEnd as number];
    if (a < 0 || b <= a || b > bytes.length) return `facets/${i}/index [${a}, ${b}) is outside the text's ${bytes.length} bytes`;
    if (a < last) return `facets/${i} overlaps the facet before it`;
    last = b;
    let covered: string;
    try {
      covered = strict.decode(bytes.subarray(a, b));
    } catch {
      return `facets/${i}/index [${a}, ${b}) cuts a UTF-8 character`;
    }
    const feature = f.features?.[0];
    if (!feature || f.features!.length !== 1) return `facets/${i} must have one feature`;
    const ok =
      feature.$type === 'app.bsky.richtext.facet#link'
        ? feature.uri === covered || feature.uri === `https://${covered}`
        : feature.$type === 'app.bsky.richtext.facet#mention'
          ? covered.startsWith('@') && didOf(covered.slice(1).toLowerCase()) === feature.did
          : feature.$type === 'app.bsky.richtext.facet#tag'
            ? covered === `#${String(feature.tag)}` || covered === `＃${String(feature.tag)}`
            : false;
    if (!ok) return `facets/${i} (${String(feature.$type)}) does not match the text it covers: ${JSON.stringify(covered)}`;
  }
  return null;
}

type BskyEmbed = {
  $type?: string;
  images?: Array<{ image?: { ref?: { $link?: string }; mimeType?: string; size?: number }; alt?: unknown; aspectRatio?: { width?: number; height?: number } }>;
};

/** What the PDS checks of an app.bsky.embed.images embed (its lexicon): ≤ 4 images, each a known blob ≤ 1,000,000 bytes with an `alt` string. */
function invalidEmbed(embed: BskyEmbed | undefined, state: BlueskyState): string | null {
  if (!embed) return null;
  if (embed.$type !== 'app.bsky.embed.images') return `unknown embed ${String(embed.$type)}`;
  const images = embed.images ?? [];
  if (!images.length || images.length > 4) return 'embed/images must have 1 to 4 items';
  for (const [i, img] of images.entries()) {
    const blob = state.blobs.get(img.image?.ref?.$link ?? '');
    if (!blob) return `embed/images/${i}/image is not an uploaded blob`;
    if (blob.size > 1_000_000) return `embed/images/${i}/image is too big (max 1000000 bytes)`;
    if (typeof img.alt !== 'string') return `embed/images/${i} must have the property "alt"`;
    if (!img.aspectRatio?.width || !img.aspectRatio?.height) return `embed/images/${i}/aspectRatio must have width and height`;
  }
  return null;
}

export async function startBlueskyFake(init: Partial<BlueskyState> = {}): Promise<{ fake: Fake; state: BlueskyState; env: Record<string, string> }> {
  const state: BlueskyState = {
    handle: 'ada.bsky.social',
    did: 'did:plc:ada123',
    appPassword: 'abcd-efgh-ijkl-mnop',
    posts: [],
    records: new Map(),
    createCalls: 0,
    failCreates: 0,
    refuseText: null,
    refuseStatus: 400,
    dropAnswerText: null,
    blobs: new Map(),
    handles: new Map(),
    resolved: [],
    failNext: 0,
    failStatus: 503,
    ...init,
  };
  const jwt = 'jwt-access-ada';
  const didOf = (handle: string) => (handle === state.handle ? state.did : state.handles.get(handle));
  const fake = await startFake({
    tls: true,
    handler: (req, res, body) => {
      if (failing(state, res)) return;
      const url = new URL(req.url ?? '/', 'https://x');
      const method = url.pathname.replace('/xrpc/', '');
      if (req.method === 'POST' && method === 'com.atproto.server.createSession') {
        const b = JSON.parse(body.toString('utf8')) as { identifier?: string; password?: string };
        if (b.identifier !== state.handle || b.password !== state.appPassword)
          return json(res, 401, { error: 'AuthenticationRequired', message: 'Invalid identifier or password' });
        return json(res, 200, { accessJwt: jwt, refreshJwt: 'jwt-refresh', handle: state.handle, did: state.did });
      }
      if (req.headers.authorization !== `Bearer ${jwt}`) return json(res, 401, { error: 'AuthenticationRequired' });
      if (req.method === 'GET' && method === 'app.bsky.feed.getAuthorFeed') {
        const feed = state.posts.map((p) => ({
          post: {
            uri: `at://${p.repost ? 'did:plc:other' : state.did}/app.bsky.feed.post/${p.rkey}`,
            cid: `cid-${p.rkey}`,
            author: { did: p.repost ? 'did:plc:other' : state.did, handle: p.repost ? 'other.bsky.social' : state.handle },
            record: { $type: 'app.bsky.feed.post', text: p.text, createdAt: p.createdAt },
            likeCount: p.likeCount,
            repostCount: p.repostCount,
            replyCount: p.replyCount,
            quoteCount: p.quoteCount,
            indexedAt: p.createdAt,
            ...(p.embed ? { embed: p.embed } : {}),
          },
          ...(p.repost ? { reason: { $type: 'app.bsky.feed.defs#reasonRepost' } } : {}),
        }));
        return json(res, 200, { feed });
      }
      if (req.method === 'GET' && method === 'com.atproto.identity.resolveHandle') {
        const handle = (url.searchParams.get('handle') ?? '').toLowerCase();
        state.resolved.push(handle);
        const did = didOf(handle);
        return did ? json(res, 200, { did }) : json(res, 400, { error: 'InvalidRequest', message: 'Unable to resolve handle' });
      }
      if (req.method === 'POST' && method === 'com.atproto.repo.uploadBlob') {
        const mimeType = String(req.headers['content-type'] ?? '');
        if (!mimeType.startsWith('image/')) return json(res, 400, { error: 'InvalidRequest', message: 'Unsupported blob type' });
        const cid = `bafkrei${createHash('sha256').update(body).digest('hex').slice(0, 40)}`;
        state.blobs.set(cid, { mimeType, size: body.length, bytes: Buffer.from(body) });
        return json(res, 200, { blob: { $type: 'blob', ref: { $link: cid }, mimeType, size: body.length } });
      }
      if (req.method === 'POST' && method === 'com.atproto.repo.createRecord') {
        state.createCalls += 1;
        const b = JSON.parse(body.toString('utf8')) as {
          repo: string;
          collection: string;
          rkey: string;
          record: {
            text: string;
            embed?: BskyEmbed;
            facets?: BskyFacet[];
            reply?: { root: { uri: string; cid: string }; parent: { uri: string; cid: string } };
          };
        };
        if (state.failCreates > 0) {
          state.failCreates -= 1;
          return json(res, 503, { error: 'InternalServerError', message: 'fake outage' });
        }
        if (state.refuseText && b.record.text.includes(state.refuseText))
          return json(res, state.refuseStatus, { error: 'InvalidRequest', message: `fake refusal ${state.refuseStatus}` });
        // The reference PDS (bluesky-social/atproto) answers a create at a taken key with 500: its
        // repository refuses a second value at that key, an error it does not map to a 4xx.
        if (state.records.has(b.rkey)) return json(res, 500, { error: 'InternalServerError', message: 'Internal Server Error' });
        // The app.bsky.feed.post lexicon: text maxGraphemes 300, maxLength 3000 (bytes).
        if ([...new Intl.Segmenter().segment(b.record.text)].length > 300 || Buffer.byteLength(b.record.text) > 3000)
          return json(res, 400, { error: 'InvalidRequest', message: 'Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes' });
        const invalid = invalidEmbed(b.record.embed, state) ?? invalidFacets(b.record.text, b.record.facets, didOf);
        if (invalid) return json(res, 400, { error: 'InvalidRequest', message: invalid });
        // A reply must name records that exist, with their content ids.
        for (const ref of b.record.reply ? [b.record.reply.root, b.record.reply.parent] : []) {
          const rk = ref.uri.split('/').pop() ?? '';
          if (!state.records.has(rk) || ref.cid !== `cid-${rk}`)
            return json(res, 400, { error: 'InvalidRequest', message: `reply reference ${ref.uri} is unknown` });
        }
        state.records.set(b.rkey, {
          text: b.record.text,
          ...(b.record.reply ? { reply: b.record.reply } : {}),
          ...(b.record.embed ? { embed: b.record.embed } : {}),
          ...(b.record.facets ? { facets: b.record.facets } : {}),
        });
        if (dropLostAnswer(state, b.record.text, req)) return;
        return json(res, 200, { uri: `at://${b.repo}/${b.collection}/${b.rkey}`, cid: `cid-${b.rkey}` });
      }
      if (req.method === 'GET' && method === 'com.atproto.repo.getRecord') {
        const rkey = url.searchParams.get('rkey') ?? '';
        const r = state.records.get(rkey);
        if (!r) return json(res, 400, { error: 'RecordNotFound', message: 'Could not locate record' });
        return json(res, 200, { uri: `at://${state.did}/app.bsky.feed.post/${rkey}`, cid: `cid-${rkey}`, value: r });
      }
      json(res, 404, { error: 'MethodNotImplemented' });
    },
  });
  return { fake, state, env: { BLUESKY_SERVICE_URL: fake.url } };
}

// ---- RSS / Atom ----

export interface FeedState extends FailureMode {
  /** The document served at /feed.xml. */
  xml: string;
  /** When set, served instead of `xml`, as these bytes, with `contentType` (null: no Content-Type header). */
  body?: Buffer;
  contentType?: string | null;
  /** Milliseconds each answer waits (to observe concurrency). */
  delayMs: number;
  inFlight: number;
  maxInFlight: number;
}

export function rssDocument(items: Array<{ guid: string; title: string; description: string; pubDate: string; link?: string; comments?: number }>): string {
  const body = items
    .map(
      (i) =>
        `<item><guid isPermaLink="false">${i.guid}</guid><title>${i.title}</title><link>${i.link ?? `https://blog.example.com/${i.guid}`}</link>` +
        `<description><![CDATA[${i.description}]]></description><pubDate>${i.pubDate}</pubDate>${i.comments !== undefined ? `<slash:comments>${i.comments}</slash:comments>` : ''}</item>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:slash="http://purl.org/rss/1.0/modules/slash/"><channel><title>Ada's blog</title><link>https://blog.example.com/</link><description>Notes</description>\n${body}\n</channel></rss>`;
}

export async function startFeedFake(init: Partial<FeedState> = {}): Promise<{ fake: Fake; state: FeedState; url: string }> {
  const state: FeedState = { xml: rssDocument([]), delayMs: 0, inFlight: 0, maxInFlight: 0, failNext: 0, failStatus: 503, ...init };
  const fake = await startFake({
    tls: true,
    handler: async (req, res) => {
      state.inFlight += 1;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      try {
        if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
        if (failing(state, res)) return;
        if (!(req.url ?? '').startsWith('/feed.xml')) return json(res, 404, { error: 'no such feed' });
        if (state.body) {
          res.writeHead(200, state.contentType ? { 'content-type': state.contentType } : {});
          res.end(state.body);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' });
        res.end(state.xml);
      } finally {
        state.inFlight -= 1;
      }
    },
  });
  return { fake, state, url: `${fake.url}/feed.xml` };
}

// ---- An HTTP CONNECT proxy (for proxy_url) ----

export interface ProxyFake {
  /** `http://127.0.0.1:<port>` */
  url: string;
  host: string;
  /** The `host:port` of every CONNECT the proxy tunnelled. */
  tunnels: string[];
  close(): Promise<void>;
}

export async function startConnectProxy(): Promise<ProxyFake> {
  const tunnels: string[] = [];
  const upstreams = new Set<net.Socket>();
  const fake = await startFake({
    tls: false,
    handler: reply(405),
    onConnect: (req, client, head) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstreams.add(upstream);
      const end = () => {
        upstream.destroy();
        client.destroy();
      };
      upstream.on('error', end);
      client.on('error', end);
    },
  });
  return {
    url: fake.url,
    host: fake.host,
    tunnels,
    close: async () => {
      for (const s of upstreams) s.destroy();
      await fake.close();
    },
  };
}
