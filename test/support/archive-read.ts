// Reading a generated export the way an import does (scan, then read), and comparing the posts
// with what the generator says the author wrote. Shared by the unit tests of the export formats.
import { expect } from 'vitest';
import { bufferSource, readExport, scanExport, type ArchivePost } from '../../server/adapters/archive/index.js';
import type { ExpectedPost } from './exports.js';

export async function readAll(bytes: Buffer, opts: { includeNonPublic?: boolean; format?: string } = {}) {
  const includeNonPublic = opts.includeNonPublic ?? false;
  const scan = await scanExport(bufferSource(bytes), { includeNonPublic, format: opts.format });
  const posts: ArchivePost[] = [];
  for await (const p of readExport(bufferSource(bytes), { format: scan.layout.format, includeNonPublic, ownUserId: scan.ownUserId })) posts.push(p);
  return { scan, posts };
}

export const view = (p: ArchivePost | ExpectedPost) => ({
  text: p.text,
  visibility: p.visibility,
  replyTo: p.replyTo,
  publishedAt: p.publishedAt instanceof Date ? p.publishedAt.toISOString() : p.publishedAt,
  media: p.media.map((m) => ({ type: m.type, alt_text: m.alt_text, archive_path: m.archive_path, url: m.url, width: m.width, height: m.height })),
});

export function expectSame(posts: ArchivePost[], expected: Map<string, ExpectedPost>, key: (p: ArchivePost) => string = (p) => p.externalId) {
  expect(posts.length).toBe(expected.size);
  for (const p of posts) {
    const e = expected.get(key(p));
    expect(e, `unexpected post ${key(p)}`).toBeDefined();
    expect(view(p)).toEqual(view(e!));
  }
}
