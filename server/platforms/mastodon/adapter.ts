// Mastodon (and API-compatible servers). The handle is `@user@instance`; the credential is an
// access token of that account (scopes read + write:statuses). The instance is reached at
// https://<instance> through the outbound client.
import { jsonBody, memoized, send, sendJson } from '../../adapters/http.js';
import { refusesTextBy } from '../counting.js';
import { mastodonCounting } from './counting.js';
import { count, dated, dateOf, htmlToText, httpUrl, plainText, withPoll } from '../../adapters/text.js';
import {
  AdapterError,
  type AdapterContext,
  type Credentials,
  type FetchedPost,
  type ImageToUpload,
  type MediaRef,
  type MediaType,
  type PlatformAdapter,
  type Poll,
} from '../../adapters/types.js';

const HANDLE = /^@?([A-Za-z0-9_.-]+)@([A-Za-z0-9.-]+\.[A-Za-z0-9-]+(?::\d{1,5})?)$/;
const PAGE = 40;

interface Status {
  id: string;
  created_at: string;
  url?: string | null;
  uri?: string;
  content?: string;
  spoiler_text?: string;
  reblog?: unknown;
  favourites_count?: number;
  reblogs_count?: number;
  replies_count?: number;
  quotes_count?: number;
  media_attachments?: Attachment[];
  /** `public`, `unlisted`, `private` (followers only) or `direct` (a direct message). */
  visibility?: string;
  /** Mastodon API `Poll`. */
  poll?: {
    options?: Array<{ title?: string; votes_count?: number | null }>;
    multiple?: boolean;
    expires_at?: string | null;
    voters_count?: number | null;
  } | null;
}

/** A status's poll as the contract's `SourcePoll`. */
function pollOfStatus(p: Status['poll']): Poll | null {
  const options = (p?.options ?? []).flatMap((o) =>
    typeof o.title === 'string' && o.title.trim() ? [{ title: o.title.trim(), votes: typeof o.votes_count === 'number' ? count(o.votes_count) : null }] : [],
  );
  if (!p || !options.length) return null;
  return {
    multiple: p.multiple === true,
    options,
    closes_at: dateOf(p.expires_at)?.toISOString() ?? null,
    voters: typeof p.voters_count === 'number' ? count(p.voters_count) : null,
  };
}

/** A status's attachment (Mastodon API `MediaAttachment`). */
interface Attachment {
  type?: string;
  url?: string | null;
  remote_url?: string | null;
  description?: string | null;
  meta?: { original?: { width?: number; height?: number } } | null;
}

const ATTACHMENT_TYPES: Record<string, MediaType> = { image: 'image', gifv: 'gif', video: 'video', audio: 'audio' };

/** The attachments of a status: type, the original's size, the alt text (`description`). */
export function mastodonMedia(list: Attachment[] | undefined): MediaRef[] {
  return (Array.isArray(list) ? list : []).map((a) => ({
    type: ATTACHMENT_TYPES[String(a.type)] ?? 'other',
    url: httpUrl(a.url) ?? httpUrl(a.remote_url),
    archive_path: null,
    alt_text: typeof a.description === 'string' && a.description.trim() ? a.description : null,
    width: count(a.meta?.original?.width) || null,
    height: count(a.meta?.original?.height) || null,
  }));
}

function parts(handle: string): { user: string; base: string } {
  const m = HANDLE.exec(handle);
  if (!m) throw new AdapterError('invalid_input', 'a mastodon handle has the form @user@instance, e.g. @ada@mastodon.social', null, 'handle');
  return { user: m[1], base: `https://${m[2].toLowerCase()}` };
}

const auth = (creds: Credentials) => ({ authorization: `Bearer ${creds.secret}` });

/**
 * The audience of a status. The account's own token sees all its statuses, direct messages and
 * followers-only ones included: a direct message is never a source (null), a followers-only
 * status keeps its audience, so that publishing a draft of it needs confirming.
 */
const AUDIENCES: Record<string, FetchedPost['visibility'] | null> = { public: 'public', unlisted: 'unlisted', private: 'followers', direct: null };

/** Whether a status is a direct message: never a source, and reported as withdrawn (see PostListing). */
export const isDirect = (s: Pick<Status, 'visibility'>): boolean => s.visibility === 'direct';

function toPost(s: Status, now: Date): FetchedPost | null {
  // An unknown audience is treated as the narrowest that is not a direct message.
  const visibility = s.visibility === undefined ? 'public' : s.visibility in AUDIENCES ? AUDIENCES[s.visibility] : 'followers';
  if (!visibility) return null;
  // The content warning is kept apart from the text (published again as `spoiler_text`).
  const poll = pollOfStatus(s.poll);
  const text = withPoll(htmlToText(s.content ?? ''), poll);
  // `content` is HTML; `spoiler_text` is plain text (Mastodon's API gives it as the author typed it).
  const warning = plainText(s.spoiler_text ?? '');
  const { publishedAt, unreadDate } = dated(s.created_at, dateOf(s.created_at), now);
  const media = mastodonMedia(s.media_attachments);
  if ((!text && !media.length) || typeof s.id !== 'string') return null;
  return {
    externalId: s.id,
    url: httpUrl(s.url) ?? httpUrl(s.uri),
    text,
    publishedAt,
    metrics: { likes: count(s.favourites_count), reposts: count(s.reblogs_count), replies: count(s.replies_count), quotes: count(s.quotes_count) },
    media,
    visibility,
    contentWarning: warning || null,
    poll,
    unreadDate,
  };
}

async function verify(ctx: AdapterContext, handle: string, creds: Credentials) {
  const { user, base } = parts(handle);
  if (!creds.secret) throw new AdapterError('credential_rejected', 'a mastodon account needs an access token in auth_material');
  const me = await sendJson<{ id?: string; username?: string; acct?: string; display_name?: string }>(ctx, {
    url: `${base}/api/v1/accounts/verify_credentials`,
    what: 'verify_credentials',
    authenticated: true,
    headers: auth(creds),
  });
  // The token must be the handle's own: we publish with it in the handle's name.
  if (typeof me.username !== 'string' || me.username.toLowerCase() !== user.toLowerCase()) {
    throw new AdapterError('credential_rejected', `the token belongs to @${me.username ?? 'someone else'}, not @${user}`);
  }
  return { me, base, user };
}

const verifiedOnce = (ctx: AdapterContext, handle: string, creds: Credentials) =>
  memoized(ctx, `mastodon:verify:${handle}:${creds.secret}`, () => verify(ctx, handle, creds));

/** A multipart/form-data body (the WHATWG FormData encoder of Node, through a Response). */
export async function formData(
  fields: Record<string, string>,
  file: { name: string; type: string; bytes: Buffer },
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}

/** How often, and how many times, a media attachment still processing upstream is asked about again. */
export const MEDIA_POLL_MS = 1000;
const MEDIA_POLLS = 30;
const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif' };

/**
 * POST /api/v2/media with the alt text as `description`, one image at a time, in order. An
 * attachment answered 202 (still processing) is polled (GET /api/v1/media/:id: 206 until ready),
 * since a status cannot attach it before. Returns the ids for `media_ids`.
 */
async function uploadMastodonImages(ctx: AdapterContext, base: string, creds: Credentials, images: ImageToUpload[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, img] of images.entries()) {
    const { body, contentType } = await formData(img.altText ? { description: img.altText } : {}, {
      name: `image-${i + 1}.${EXTENSIONS[img.contentType] ?? 'bin'}`,
      type: img.contentType,
      bytes: img.bytes,
    });
    const res = await send(ctx, {
      url: `${base}/api/v2/media`,
      method: 'POST',
      what: 'media',
      authenticated: true,
      body,
      headers: { ...auth(creds), 'content-type': contentType, accept: 'application/json' },
    });
    const made = res.json<{ id?: string; url?: string | null }>();
    if (typeof made.id !== 'string') throw new AdapterError('invalid_response', 'media answered without an attachment id');
    let ready = res.status === 200 && !!made.url;
    for (let poll = 0; !ready && poll < MEDIA_POLLS; poll++) {
      await new Promise((r) => setTimeout(r, MEDIA_POLL_MS));
      const again = await send(ctx, {
        url: `${base}/api/v1/media/${encodeURIComponent(made.id)}`,
        what: 'media',
        authenticated: true,
        headers: { ...auth(creds), accept: 'application/json' },
      });
      ready = again.status === 200;
    }
    if (!ready) throw new AdapterError('unavailable', `the instance was still processing image ${i + 1} after ${(MEDIA_POLLS * MEDIA_POLL_MS) / 1000} s`);
    ids.push(made.id);
  }
  return ids;
}

export const mastodonAdapter: PlatformAdapter = {
  platform: 'mastodon',
  ingestLimit: 200,
  needsCredentials: true,
  normalizeHandle(handle) {
    const { user, base } = parts(handle);
    return `@${user}@${new URL(base).host}`;
  },
  async probe(ctx, handle, creds) {
    const { me, user } = await verify(ctx, handle, creds);
    return { displayName: me.display_name || `@${user}` };
  },
  async listPosts(ctx, handle, creds, opts) {
    const { user, base } = parts(handle);
    const account = await sendJson<{ id?: string }>(ctx, {
      url: `${base}/api/v1/accounts/lookup?acct=${encodeURIComponent(user)}`,
      what: 'accounts/lookup',
      authenticated: true,
      headers: auth(creds),
    });
    if (typeof account.id !== 'string') throw new AdapterError('invalid_response', 'accounts/lookup answered without an account id');
    const posts: FetchedPost[] = [];
    // Direct messages seen: never sources, reported so that ingest retires one stored by an older version.
    const withdrawn: string[] = [];
    let maxId: string | null = null;
    // Newest first, page by page (max_id), until we have enough or the account has no more.
    while (posts.length < opts.max) {
      const q = new URLSearchParams({ limit: String(PAGE), exclude_reblogs: 'true', exclude_replies: 'true' });
      if (maxId) q.set('max_id', maxId);
      const page = await sendJson<Status[]>(ctx, {
        url: `${base}/api/v1/accounts/${encodeURIComponent(account.id)}/statuses?${q}`,
        what: 'statuses',
        authenticated: true,
        headers: auth(creds),
      });
      if (!Array.isArray(page)) throw new AdapterError('invalid_response', 'statuses did not answer a list');
      for (const s of page) {
        if (!s.reblog && isDirect(s) && typeof s.id === 'string') withdrawn.push(s.id);
        const p = s.reblog ? null : toPost(s, ctx.now);
        if (p) posts.push(p);
      }
      if (page.length < PAGE) break;
      maxId = page[page.length - 1].id;
    }
    return { posts: posts.slice(0, opts.max), withdrawn };
  },
  refusesText: refusesTextBy(mastodonCounting),
  async publish(ctx, handle, creds, part) {
    // Once per publish run (ctx.memo), not before every part of a thread.
    const { base } = await verifiedOnce(ctx, handle, creds);
    const media = part.media && 'mediaIds' in part.media ? { media_ids: part.media.mediaIds } : {};
    const { key } = part;
    const status = await sendJson<Status>(ctx, {
      url: `${base}/api/v1/statuses`,
      method: 'POST',
      what: 'statuses',
      authenticated: true,
      ...jsonBody({
        status: part.text,
        visibility: 'public',
        ...media,
        ...(part.replyTo ? { in_reply_to_id: part.replyTo.parent.externalId } : {}),
        // The text is folded behind the warning, as the source post was.
        ...(part.contentWarning ? { spoiler_text: part.contentWarning } : {}),
      }),
      // Mastodon keeps Idempotency-Key for an hour: a retried publish of this part returns the
      // status it already made instead of posting twice (one key per part of a thread).
      headers: { ...auth(creds), 'content-type': 'application/json', 'idempotency-key': key.position === 0 ? `cp-${key.id}` : `cp-${key.id}-${key.position}` },
    });
    if (typeof status.id !== 'string') throw new AdapterError('invalid_response', 'statuses answered without a status id');
    return { externalId: status.id, url: httpUrl(status.url) ?? httpUrl(status.uri), cid: null };
  },
  async uploadImages(ctx, handle, creds, images) {
    const { base } = await verifiedOnce(ctx, handle, creds);
    return { mediaIds: await uploadMastodonImages(ctx, base, creds, images) };
  },
};
