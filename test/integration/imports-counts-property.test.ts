// A property of every import, whatever the format: the summary the upload answers is what the
// pipeline then holds, and nothing read is lost without a word. For exports of every format
// generated at random sizes and seeds (fast-check), uploaded through POST /imports and ingested:
// - `posts` + every count of `skipped` = the records the export holds (what its generator wrote),
//   also when nothing is left to import (the 422 names what was left out);
// - `posts` = the rows `GET /pipelines/{id}/posts` lists, and `by_visibility`, `self_replies`,
//   `media` and `unread_dates` are counted from those rows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blueskyRepo, instagramExport, wordpressExport, wxrBytes } from '../support/exports-formats.js';
import { mediumExport, misskeyExport, pixelfedExport, substackExport, threadsExport } from '../support/exports-more.js';
import { linkedInArchive, mastodonArchive, writeZip, xArchive, type Generated } from '../support/exports.js';
import { importServer } from '../support/imports-http.js';

const { post, ingested } = importServer();

interface Built {
  bytes: Buffer;
  contentType: string;
  /** What the export holds: the posts a default import keeps, and every record left out. */
  records: number;
  posts: number;
}

const total = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
const zipped = async (g: Generated): Promise<Built> => ({
  bytes: (await writeZip(g.files))!,
  contentType: 'application/zip',
  records: g.publicPosts.size + total(g.skipped),
  posts: g.publicPosts.size,
});

/** Every format read, each built from a size and a seed. */
const FORMATS: Record<string, (n: number, seed: number) => Promise<Built>> = {
  x: (n, seed) => zipped(xArchive({ posts: n, seed, withAccount: true })),
  mastodon: (n, seed) => zipped(mastodonArchive({ posts: n, seed })),
  linkedin: (n, seed) => zipped(linkedInArchive({ posts: n, seed })),
  bluesky: async (n, seed) => {
    const g = await blueskyRepo({ posts: n, seed });
    return { bytes: (await g.write())!, contentType: 'application/vnd.ipld.car', records: g.publicPosts.size + total(g.skipped), posts: g.publicPosts.size };
  },
  wordpress: (n, seed) => {
    const g = wordpressExport({ posts: n, seed, paragraphs: 1 });
    return Promise.resolve({ bytes: wxrBytes(g), contentType: 'application/xml', records: g.publicPosts.size + total(g.skipped), posts: g.publicPosts.size });
  },
  instagram: (n) => zipped(instagramExport({ posts: n })),
  threads: (n, seed) => zipped(threadsExport({ posts: n, seed })),
  medium: (n, seed) => zipped(mediumExport({ posts: n, draftEvery: 2 + (seed % 4) })),
  substack: (n) => zipped(substackExport({ posts: n })),
  misskey: (n, seed) => zipped(misskeyExport({ notes: n, seed })),
  pixelfed: (n, seed) => zipped(pixelfedExport({ statuses: n, chunk: 1 + (seed % 9) })),
};

let runs = 0;

describe('the summary of any import is what the pipeline holds', () => {
  it.each(Object.keys(FORMATS))('%s: posts + left out = records read, and every count matches the listed rows', async (format) => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 3, max: 30 }), fc.nat({ max: 10_000 }), async (n, seed) => {
        const built = await FORMATS[format]!(n, seed);
        const handle = `prop-${format}-${(runs += 1)}`;
        const r = await post(built.bytes, { handle }, built.contentType);
        if (built.posts === 0) {
          // Nothing to import is refused, and the refusal still counts every record it left out.
          expect(r.status).toBe(422);
          const left = /left out: ([^)]*)\)/.exec(String(r.json.error.message))?.[1] ?? '';
          expect(left.split(', ').reduce((m, part) => m + Number(part.split(' ')[0]), 0)).toBe(built.records);
          return;
        }
        expect(r.status, JSON.stringify(r.json)).toBe(201);
        const summary = r.json.summary as {
          posts: number;
          skipped: Record<string, number>;
          by_visibility: Record<string, number>;
          self_replies: number;
          media: number;
          unread_dates: number;
        };
        expect(r.json.format).toBe(format);
        expect(summary.posts + total(summary.skipped)).toBe(built.records);
        expect(summary.posts).toBe(built.posts);
        const rows = await ingested(handle, summary.posts);
        expect(rows).toHaveLength(summary.posts);
        const byVisibility = { public: 0, unlisted: 0, followers: 0, connections: 0 } as Record<string, number>;
        for (const p of rows) byVisibility[p.visibility]! += 1;
        expect(summary.by_visibility).toEqual(byVisibility);
        expect(summary.self_replies).toBe(rows.filter((p) => p.reply_to).length);
        expect(summary.media).toBe(rows.reduce((m, p) => m + p.media.length, 0));
        expect(summary.unread_dates).toBe(rows.filter((p) => p.unread_date !== null).length);
      }),
      { numRuns: 3, endOnFailure: true },
    );
  });
});
