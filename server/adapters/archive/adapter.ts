// The `archive` platform: imported data exports, for platforms whose APIs are closed. An export
// arrives as an upload (`POST /imports`, any size, ZIP/tar.gz/bare file) or, when small, as the
// content of `auth_material` in `accounts/connect` (`secondary_auth`: x, linkedin or mastodon;
// detected when absent). The handle is a name the user gives the archive. Nothing is fetched, and
// archives cannot publish. Ingest reads the export as a stream (services/ingest.ts), not through
// `listPosts`, which serves callers that want a handful of posts.
import { AdapterError, type PlatformAdapter } from '../types.js';
import { ArchiveError } from './errors.js';
import { bufferSource } from './container.js';
import { readExport, scanExport } from './index.js';
import type { ArchiveFormat } from './types.js';

const bad = (message: string, field = 'auth_material') => new AdapterError('invalid_input', message, null, field);

/** `auth_material`'s field names, for an export sent in a JSON body. */
const asAdapterError = (err: unknown) => (err instanceof ArchiveError ? bad(err.message, err.field === 'format' ? 'secondary_auth' : 'auth_material') : err);

export const archiveAdapter: PlatformAdapter = {
  platform: 'archive',
  needsCredentials: true,
  ingestLimit: Number.MAX_SAFE_INTEGER,
  normalizeHandle(handle) {
    const h = handle.trim();
    if (!h) throw bad('an archive handle is a name for the archive, e.g. ada-x-2024', 'handle');
    return h;
  },
  async probe(_ctx, _handle, creds) {
    try {
      const { summary } = await scanExport(bufferSource(Buffer.from(creds.secret, 'utf8')), { format: creds.secondary, includeNonPublic: false });
      return { displayName: `${summary.format} archive with ${summary.posts} posts` };
    } catch (err) {
      throw asAdapterError(err);
    }
  },
  async listPosts(_ctx, _handle, creds, opts) {
    const source = bufferSource(Buffer.from(creds.secret, 'utf8'));
    try {
      const { layout, ownUserId } = await scanExport(source, { format: creds.secondary, includeNonPublic: false });
      const posts = [];
      for await (const p of readExport(source, { format: layout.format as ArchiveFormat, includeNonPublic: false, ownUserId })) {
        posts.push(p);
        if (posts.length >= opts.max) break;
      }
      return { posts, withdrawn: [] };
    } catch (err) {
      throw asAdapterError(err);
    }
  },
};
