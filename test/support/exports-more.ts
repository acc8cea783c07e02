// The exports added by issue 34, built as the platforms hand them out, at any size, each with
// what a correct import must produce post by post (`Generated`: the files, the public posts, the
// non-public ones, what is left out by reason):
// - Threads: Meta's `threads_and_replies.json` whose `post_text_app_text` values mix Meta's
//   escaped UTF-8 (each byte `\u00XX`) with characters written as themselves, in one string;
// - Medium: the export ZIP, one h-entry page per story under `posts/`, drafts `posts/draft_…`;
// - Substack: the export ZIP, `posts.csv` with free, paid-only, founding and unpublished posts,
//   and `posts/<post_id>.html` per post;
// - Misskey (Sharkey, Firefish): the notes export, with content warnings, pure renotes, quotes,
//   replies to the author's own notes and to others', every audience, files with alt text, polls;
// - Pixelfed: `pixelfed-statuses.json` as Pixelfed writes it (thousands as `{"data": [...]}`
//   joined in one array), with shares, comments, drafts, archived and followers-only statuses.
import { type ExpectedPost, type Generated, rng, UNICODE_SAMPLES } from './exports.js';
import { META_SCRIPTS, zeroSkips } from './exports-formats.js';

const expected = (o: Partial<ExpectedPost> & Pick<ExpectedPost, 'externalId' | 'text' | 'publishedAt'>): ExpectedPost => ({
  visibility: 'public',
  media: [],
  replyTo: null,
  likes: 0,
  reposts: 0,
  ...o,
});

const at = (base: number, i: number) => new Date(base - i * 3_600_000 - (i % 5) * 61_000);
const iso = (d: Date) => d.toISOString();
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// ---------------------------------------------------------------- Threads

/** A JSON string literal of `s`, Meta-escaped (each UTF-8 byte `\u00XX`) or with its characters as themselves. */
function jsonString(s: string, escaped: boolean): string {
  const body = JSON.stringify(s).slice(1, -1);
  return escaped
    ? body.replace(/[\u0080-\u{10ffff}]/gu, (c) => [...Buffer.from(c, 'utf8')].map((b) => `\\u00${b.toString(16).padStart(2, '0')}`).join(''))
    : body;
}

/** A string literal whose words alternate between Meta's escapes and characters as themselves. */
export function mixedMeta(s: string, offset = 0): string {
  const parts = s.split(/(\s+)/);
  return `"${parts.map((p, k) => jsonString(p, (Math.floor(k / 2) + offset) % 2 === 0)).join('')}"`;
}

export interface ThreadsOptions {
  posts: number;
  seed?: number;
}

/** A Meta export ZIP holding Threads: `your_instagram_activity/threads/threads_and_replies.json`, and an empty entry or two. */
export function threadsExport(o: ThreadsOptions): Generated {
  const r = rng(o.seed ?? 3);
  const base = Date.UTC(2024, 6, 5, 12, 0, 0);
  const publicPosts = new Map<string, ExpectedPost>();
  const skipped: Record<string, number> = zeroSkips();
  const entries: string[] = [];
  const files: Generated['files'] = [];
  for (let i = 0; i < o.posts; i++) {
    const seconds = Math.floor(at(base, i).getTime() / 1000);
    if (i % 9 === 8) {
      entries.push(`{"media": [], "post_text_app_text": "", "creation_timestamp": ${seconds}}`);
      skipped.empty += 1;
      continue;
    }
    const text = `${META_SCRIPTS[i % META_SCRIPTS.length]} ${UNICODE_SAMPLES[r.int(UNICODE_SAMPLES.length)]!.replace(/[\u00a0\u200b\u00ad]/g, '-')} #${i}`;
    const withPicture = i % 4 === 1;
    const uri = `your_instagram_activity/threads/media/1790${String(i).padStart(12, '0')}.jpg`;
    if (withPicture) files.push({ name: uri, data: Buffer.from([0xff, 0xd8, 0xff, 0xe0, i & 0xff]) });
    const media = withPicture ? `[{"uri": "${uri}", "creation_timestamp": ${seconds}, "title": ""}]` : '[]';
    entries.push(`{"media": ${media}, "post_text_app_text": ${mixedMeta(text, i)}, "creation_timestamp": ${seconds}}`);
    publicPosts.set(
      text,
      expected({
        externalId: '',
        text,
        publishedAt: iso(new Date(seconds * 1000)),
        media: withPicture ? [{ type: 'image', alt_text: null, archive_path: uri, url: null, width: null, height: null }] : [],
      }),
    );
  }
  files.unshift({
    name: 'your_instagram_activity/threads/threads_and_replies.json',
    data: Buffer.from(`{\n  "text_post_app_text_posts": [\n    ${entries.join(',\n    ')}\n  ]\n}\n`),
  });
  files.push({ name: 'personal_information/personal_information/personal_information.json', data: Buffer.from('{"profile_user": []}') });
  return { files, publicPosts, nonPublicPosts: new Map(), skipped };
}

// ---------------------------------------------------------------- Medium

export interface MediumOptions {
  posts: number;
  /** Every how many stories a draft is written (0: none). */
  draftEvery?: number;
}

/** A story's page as Medium exports it (an h-entry), and its text as the import must read it. */
function mediumPage(title: string, paragraphs: string[], link: string, date: Date | null, canonical: string | null): string {
  const body = [
    `<h3 class="graf graf--h3 graf--leading graf--title">${escapeHtml(title)}</h3>`,
    ...paragraphs.map((p, k) => `<p class="graf graf--p">${p}${k === 0 ? ` <a href="${link}" class="markup--anchor">the notes</a>` : ''}</p>`),
  ].join('');
  return [
    '<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">',
    `<title>${escapeHtml(title)}</title><style>body { font-family: serif }</style></head><body><article class="h-entry">`,
    `<header><h1 class="p-name">${escapeHtml(title)}</h1></header>`,
    `<section data-field="subtitle" class="p-summary">${escapeHtml(paragraphs[0]!)}</section>`,
    `<section data-field="body" class="e-content"><section name="a1b2" class="section section--body section--first"><div class="section-content"><div class="section-inner sectionLayout--insetColumn">${body}</div></div></section></section>`,
    '<footer><p>By <a href="https://medium.com/@ada" class="p-author h-card">Ada Lovelace</a>',
    date ? ` on <a href="${canonical}"><time class="dt-published" datetime="${iso(date)}">${date.toDateString()}</time></a>` : '',
    '.</p>',
    canonical ? `<p><a href="${canonical}" class="p-canonical">Canonical link</a></p>` : '',
    '<p>Exported from <a href="https://medium.com">Medium</a> on June 1, 2024.</p></footer></article></body></html>',
  ].join('');
}

/** A Medium export ZIP: stories and drafts under `posts/`, the profile beside. */
export function mediumExport(o: MediumOptions): Generated {
  const base = Date.UTC(2023, 10, 20, 9, 30, 0);
  const publicPosts = new Map<string, ExpectedPost>();
  const skipped: Record<string, number> = zeroSkips();
  const files: Generated['files'] = [];
  const every = o.draftEvery ?? 4;
  for (let i = 0; i < o.posts; i++) {
    const id = (0x1a2b3c4d5e6fn + BigInt(i)).toString(16);
    const title = `${META_SCRIPTS[i % META_SCRIPTS.length]!.split(':')[0]} — story ${i} & more`;
    const paragraphs = [
      `First paragraph of story ${i}: ${escapeHtml(META_SCRIPTS[(i + 1) % META_SCRIPTS.length]!)}.`,
      `Second paragraph, <em>emphasis</em> and <strong>weight</strong> ${i}.`,
    ];
    const link = `https://example.com/notes/${i}`;
    const slug = `Story-${i}-${id}`;
    if (every && i % every === every - 1) {
      files.push({ name: `posts/draft_${slug}.html`, data: Buffer.from(mediumPage(title, paragraphs, link, null, null)) });
      skipped.draft += 1;
      continue;
    }
    const date = at(base, i);
    const canonical = `https://medium.com/@ada/story-${i}-${id}`;
    files.push({ name: `posts/${iso(date).slice(0, 10)}_${slug}.html`, data: Buffer.from(mediumPage(title, paragraphs, link, date, canonical)) });
    const text = [
      title,
      `First paragraph of story ${i}: ${META_SCRIPTS[(i + 1) % META_SCRIPTS.length]}. the notes (${link})`,
      `Second paragraph, emphasis and weight ${i}.`,
    ].join('\n\n');
    publicPosts.set(canonical, expected({ externalId: canonical, text, publishedAt: iso(date) }));
  }
  files.push({ name: 'profile/profile.html', data: Buffer.from('<html><body><h3>Ada Lovelace</h3></body></html>') });
  files.push({ name: 'README.html', data: Buffer.from('<html><body>Your Medium export</body></html>') });
  return { files, publicPosts, nonPublicPosts: new Map(), skipped };
}

// ---------------------------------------------------------------- Substack

export interface SubstackOptions {
  posts: number;
}

const csvField = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** A Substack export ZIP: posts.csv and posts/<post_id>.html, free, paid-only, founding-only and unpublished posts. */
export function substackExport(o: SubstackOptions): Generated {
  const base = Date.UTC(2024, 1, 14, 7, 0, 0);
  const publicPosts = new Map<string, ExpectedPost>();
  const nonPublicPosts = new Map<string, ExpectedPost>();
  const skipped: Record<string, number> = zeroSkips();
  const files: Generated['files'] = [];
  const rows = ['post_id,post_date,is_published,email_sent_at,inbox_sent_at,type,audience,title,subtitle,podcast_url'];
  for (let i = 0; i < o.posts; i++) {
    const id = `${140000000 + i * 37}.issue-${i}`;
    const kind = i % 6;
    const audience = kind === 1 ? 'only_paid' : kind === 4 ? 'founding' : 'everyone';
    const isPublished = kind !== 5;
    const date = at(base, i);
    const title = `Issue ${i}: "${META_SCRIPTS[i % META_SCRIPTS.length]!.split(' ').slice(0, 3).join(' ')}", notes`;
    const subtitle = i % 3 === 0 ? '' : `What changed in week ${i}`;
    rows.push(
      [id, iso(date), isPublished ? 'true' : 'false', isPublished ? iso(date) : '', '', 'newsletter', audience, title, subtitle, ''].map(csvField).join(','),
    );
    files.push({
      name: `posts/${id}.html`,
      data: Buffer.from(
        `<div class="available-content"><p>Hello readers, ${escapeHtml(META_SCRIPTS[(i + 2) % META_SCRIPTS.length]!)}</p><p>Read <a href="https://example.com/issue/${i}">the issue</a>.</p></div>`,
      ),
    });
    const text = [title, subtitle, `Hello readers, ${META_SCRIPTS[(i + 2) % META_SCRIPTS.length]}`, `Read the issue (https://example.com/issue/${i}).`]
      .filter(Boolean)
      .join('\n\n');
    if (!isPublished) skipped.draft += 1;
    else if (audience !== 'everyone') {
      skipped.followers_only += 1;
      nonPublicPosts.set(`substack:${id}`, expected({ externalId: `substack:${id}`, text, publishedAt: iso(date), visibility: 'followers' }));
    } else publicPosts.set(`substack:${id}`, expected({ externalId: `substack:${id}`, text, publishedAt: iso(date) }));
  }
  files.unshift({ name: 'posts.csv', data: Buffer.from(`${rows.join('\n')}\n`) });
  files.push({ name: 'email_list.ada.csv', data: Buffer.from('email,active_subscription\nreader@example.com,true\n') });
  return { files, publicPosts, nonPublicPosts, skipped };
}

// ---------------------------------------------------------------- Misskey

export interface MisskeyOptions {
  notes: number;
  seed?: number;
}

/** A Misskey-family notes export (one JSON array, oldest first): every kind of note. */
export function misskeyExport(o: MisskeyOptions): Generated & { json: Buffer } {
  const r = rng(o.seed ?? 5);
  const base = Date.UTC(2024, 4, 1, 0, 0, 0);
  const publicPosts = new Map<string, ExpectedPost>();
  const nonPublicPosts = new Map<string, ExpectedPost>();
  const skipped: Record<string, number> = zeroSkips();
  const notes: unknown[] = [];
  let lastOwn: string | null = null;
  for (let i = 0; i < o.notes; i++) {
    const id = `9${(1_000_000 + i).toString(36)}abc`;
    const createdAt = iso(new Date(base + i * 3_600_000));
    const uni = UNICODE_SAMPLES[r.int(UNICODE_SAMPLES.length)]!;
    const kind = i % 10;
    const note = (extra: Record<string, unknown>) => ({
      id,
      createdAt,
      fileIds: [],
      files: [],
      replyId: null,
      renoteId: null,
      poll: null,
      cw: null,
      visibility: 'public',
      visibleUserIds: [],
      localOnly: false,
      reactionAcceptance: null,
      ...extra,
    });
    const own = (text: string, extra: Record<string, unknown>, e: Partial<ExpectedPost> = {}) => {
      notes.push(note({ text, ...extra }));
      const post = expected({ externalId: `misskey:${id}`, text: text.trim(), publishedAt: createdAt, ...e });
      (post.visibility === 'followers' ? nonPublicPosts : publicPosts).set(post.externalId, post);
      if (post.visibility === 'followers') skipped.followers_only += 1;
      lastOwn = id;
    };
    if (kind === 0) {
      // A pure renote: someone else's words.
      notes.push(note({ text: null, renoteId: `9zz${i}` }));
      skipped.repost += 1;
    } else if (kind === 1) own(`With a warning ${i}: ${uni}`, { cw: `spoilers for ${i}` }, {});
    else if (kind === 2 && (lastOwn as string | null)) {
      const parent = lastOwn as unknown as string;
      own(`And a follow-up ${i} in my thread`, { replyId: parent }, { replyTo: `misskey:${parent}` });
    } else if (kind === 3) {
      notes.push(note({ text: `@grace@misskey.example I agree ${i}`, replyId: `9other${i}` }));
      skipped.reply += 1;
    } else if (kind === 4) own(`Only for my followers ${i}`, { visibility: 'followers' }, { visibility: 'followers' });
    else if (kind === 5) {
      notes.push(note({ text: `a direct note ${i}`, visibility: 'specified', visibleUserIds: ['9grace'] }));
      skipped.direct_message += 1;
    } else if (kind === 6) own(`Quoting this ${i}`, { renoteId: `9quoted${i}`, visibility: 'home' }, { visibility: 'unlisted' });
    else if (kind === 7) {
      const file = {
        id: `f${i}`,
        name: `cat-${i}.jpg`,
        type: 'image/jpeg',
        url: `https://files.misskey.example/cat-${i}.jpg`,
        comment: `A cat, number ${i}`,
        properties: { width: 800, height: 600 },
        isSensitive: false,
      };
      own(
        `A picture ${i}`,
        { fileIds: [file.id], files: [file] },
        { media: [{ type: 'image', alt_text: file.comment, archive_path: null, url: file.url, width: 800, height: 600 }] },
      );
    } else if (kind === 8) {
      notes.push(note({ text: '   ' }));
      skipped.empty += 1;
    } else own(`${uni}\nline two of ${i}`, {});
  }
  const json = Buffer.from(JSON.stringify(notes, null, 2));
  return { files: [{ name: 'notes-2024-06-01-12-00-00.json', data: json }], publicPosts, nonPublicPosts, skipped, json };
}

// ---------------------------------------------------------------- Pixelfed

export interface PixelfedOptions {
  statuses: number;
  /** Statuses per `{"data": […]}` thousand (Pixelfed: 1000). */
  chunk?: number;
}

/** `pixelfed-statuses.json` as Pixelfed writes it. */
export function pixelfedExport(o: PixelfedOptions): Generated & { json: Buffer } {
  const base = Date.UTC(2024, 8, 10, 16, 0, 0);
  const account = { id: '700100', username: 'ada', acct: 'ada', url: 'https://pixelfed.example/ada' };
  const publicPosts = new Map<string, ExpectedPost>();
  const nonPublicPosts = new Map<string, ExpectedPost>();
  const skipped: Record<string, number> = zeroSkips();
  const statuses: Array<Record<string, unknown>> = [];
  let lastOwn: { id: string; url: string } | null = null;
  for (let i = 0; i < o.statuses; i++) {
    const id = String(650_000_000_000_000_000n + BigInt(i) * 7919n);
    const url = `https://pixelfed.example/p/ada/${id}`;
    const createdAt = iso(new Date(base + i * 7_200_000));
    const caption = `${META_SCRIPTS[i % META_SCRIPTS.length]} photo ${i} #sunset`;
    const kind = i % 9;
    const visibility = kind === 2 ? 'private' : kind === 3 ? 'direct' : kind === 4 ? 'draft' : kind === 5 ? 'archived' : kind === 6 ? 'unlisted' : 'public';
    const media = [
      {
        id: `m${i}`,
        type: 'image',
        url: `https://pixelfed.example/storage/m/${id}.jpg`,
        preview_url: '',
        description: i % 2 ? `Alt of photo ${i}` : null,
        meta: null,
      },
    ];
    const prev = lastOwn as { id: string; url: string } | null;
    const replyOwn = kind === 7 && prev;
    const replyOther = kind === 8;
    statuses.push({
      _v: 1,
      id,
      shortcode: `sc${i}`,
      uri: url,
      url,
      in_reply_to_id: replyOwn ? prev!.id : replyOther ? '999' : null,
      in_reply_to_account_id: replyOwn ? account.id : replyOther ? '12345' : null,
      reblog: kind === 1 ? { id: '42', content: 'someone else' } : null,
      content: `${escapeHtml(caption).replace('#sunset', '<a href="https://pixelfed.example/discover/tags/sunset">#sunset</a>')}<br />second line`,
      content_text: `${caption}\nsecond line`,
      created_at: createdAt,
      reblogs_count: 0,
      favourites_count: i % 13,
      reply_count: i % 3,
      sensitive: i % 10 === 0,
      spoiler_text: i % 10 === 0 ? `cw ${i}` : '',
      visibility,
      pf_type: 'photo',
      media_attachments: media,
      account,
    });
    const post = expected({
      externalId: url,
      text: `${caption}\nsecond line`,
      publishedAt: createdAt,
      likes: i % 13,
      visibility: visibility === 'private' ? 'followers' : visibility === 'unlisted' ? 'unlisted' : 'public',
      replyTo: replyOwn ? prev!.url : null,
      media: media.map((m) => ({ type: 'image', alt_text: m.description, archive_path: null, url: m.url, width: null, height: null })),
    });
    if (kind === 1) skipped.repost += 1;
    else if (kind === 3) skipped.direct_message += 1;
    else if (kind === 4) skipped.draft += 1;
    else if (kind === 5) skipped.private += 1;
    else if (replyOther) skipped.reply += 1;
    else if (kind === 2) {
      skipped.followers_only += 1;
      nonPublicPosts.set(url, post);
    } else publicPosts.set(url, post);
    if (kind !== 1) lastOwn = { id, url };
  }
  const chunk = o.chunk ?? 1000;
  const parts: string[] = [];
  for (let k = 0; k < statuses.length; k += chunk) parts.push(JSON.stringify({ data: statuses.slice(k, k + chunk) }, null, 4));
  const json = Buffer.from(`[${parts.join(',')}]`);
  return { files: [{ name: 'pixelfed-statuses.json', data: json }], publicPosts, nonPublicPosts, skipped, json };
}
