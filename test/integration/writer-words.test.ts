// The author's words from an X archive to a draft and its variants, through the real path: the
// archive's text (X escapes `&`, `<` and `>` as entities) is imported, decoded once, stored as
// plain text; POST /posts/{id}/draft writes the artifact with the built-in writer; its text and
// each platform's variant (parts included) keep what the author wrote — a `<` and what follows
// it, tags written as text, an entity written as text — and emoji go as whole clusters only.
// A Mastodon archive's `content` is HTML (read as such, once); its `summary` (the content
// warning) is plain text and keeps the author's `<` and `&amp;`, on the post and on its draft.
import { describe, expect, it } from 'vitest';
import { draftAndWait, ingest, listAllPosts, connect } from '../support/api.js';
import { serverSuite } from '../support/suite.js';

const t = serverSuite();

/** What each author wrote, as typed. */
const WRITTEN = {
  cjk: 'si<ti全く気づかなかった',
  code: 'cout<<-1<<endl;//return 0;を忘れた',
  script: 'Never put <script> in a post: it broke the page for everyone',
  entity: 'Writing &amp; in HTML shows & and <b>bold</b> shows bold',
  sinhala: 'ශ්‍රී ලංකා shipped it 👍🏽 then 1️⃣ and 1⃣ done',
};

/** X's escaping of a tweet's text in its archive: `&`, `<` and `>` only. */
const xEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function tweetsJs(): string {
  const tweets = Object.values(WRITTEN).map((text, i) => ({
    tweet: {
      id_str: String(1860000000000000001n + BigInt(i)),
      created_at: `Mon Nov 0${i + 1} 10:00:00 +0000 2026`,
      full_text: xEscape(text),
      favorite_count: String(10 + i),
      retweet_count: '1',
      entities: { hashtags: [], symbols: [], user_mentions: [], urls: [] },
    },
  }));
  return `window.YTD.tweets.part0 = ${JSON.stringify(tweets, null, 1)}`;
}

describe('an X archive post drafted through POST /posts/{id}/draft', () => {
  it('keeps every `<`, `&`, `>` and tag the author wrote, in the draft and in every variant; emoji go whole', async () => {
    const handle = `words-${Date.now()}`;
    await connect(t.s, { platform: 'archive', handle, auth_material: tweetsJs(), secondary_auth: 'x' });
    const { pipeline_id } = await ingest(t.s, handle);
    const posts = await listAllPosts(t.s, pipeline_id);
    // Decoded exactly once at import: the stored text is what the author typed.
    expect(posts.map((p) => p.text).sort()).toEqual(Object.values(WRITTEN).sort());

    const drafted: Record<string, string> = {};
    for (const p of posts) {
      const { artifact } = await draftAndWait(t.s, p.id, { targets: ['x', 'mastodon', 'bluesky'] });
      expect(artifact.state).toBe('review');
      const key = Object.entries(WRITTEN).find(([, w]) => w === p.text)![0];
      drafted[key] = artifact.text;
      expect(artifact.variants.map((v) => v.platform).sort()).toEqual(['bluesky', 'mastodon', 'x']);
      for (const v of artifact.variants) {
        // Each variant, and the parts it is published as, carry the same words.
        const words = key === 'sinhala' ? 'ශ්‍රී ලංකා shipped it then and done' : WRITTEN[key as keyof typeof WRITTEN];
        expect(v.text).toContain(words.replace(/[:.]$/, ''));
        expect(v.parts.map((part) => part.text).join('\n')).toContain(words.replace(/[:.]$/, ''));
      }
    }
    expect(drafted.cjk).toContain('si<ti全く気づかなかった');
    expect(drafted.code).toContain('cout<<-1<<endl;//return 0;を忘れた');
    expect(drafted.script).toContain('Never put <script> in a post: it broke the page for everyone');
    expect(drafted.entity).toContain('Writing &amp; in HTML shows & and <b>bold</b> shows bold');
    // The default style has no emoji: they go as whole clusters; the Sinhala word keeps its ZWJ.
    expect(drafted.sinhala).toContain('ශ්‍රී ලංකා shipped it then and done');
    expect(drafted.sinhala).not.toMatch(/\p{Emoji_Modifier}|\u{20E3}|\u{FE0F}/u);
  });
});

describe('a Mastodon archive post: HTML content, plain-text content warning', () => {
  it('reads the content as HTML once and keeps the warning as typed, on the post and on its draft', async () => {
    const handle = `words-md-${Date.now()}`;
    const actor = 'https://mastodon.example/users/ada';
    const outbox = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: 'outbox.json',
      type: 'OrderedCollection',
      totalItems: 1,
      orderedItems: [
        {
          id: `${actor}/statuses/1/activity`,
          type: 'Create',
          actor,
          published: '2026-11-01T10:00:00Z',
          to: ['https://www.w3.org/ns/activitystreams#Public'],
          object: {
            id: `${actor}/statuses/1`,
            type: 'Note',
            // What the author typed: `a<b &amp; <script>` as the warning, `x < y &amp; <b>` as the text.
            summary: 'CW: a<b &amp; <script>',
            inReplyTo: null,
            published: '2026-11-01T10:00:00Z',
            url: 'https://mastodon.example/@ada/1',
            content: '<p>Shown as x &lt; y &amp;amp; &lt;b&gt; in the post, <b>bold</b> here.</p>',
          },
        },
      ],
    };
    await connect(t.s, { platform: 'archive', handle, auth_material: JSON.stringify(outbox), secondary_auth: 'mastodon' });
    const { pipeline_id } = await ingest(t.s, handle);
    const [post] = await listAllPosts(t.s, pipeline_id);
    expect(post).toMatchObject({ text: 'Shown as x < y &amp; <b> in the post, bold here.', content_warning: 'CW: a<b &amp; <script>' });
    const { artifact } = await draftAndWait(t.s, post!.id, { targets: ['mastodon'] });
    expect(artifact.content_warning).toBe('CW: a<b &amp; <script>');
    expect(artifact.text).toContain('Shown as x < y &amp; <b> in the post, bold here');
  });
});
