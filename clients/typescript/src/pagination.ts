// Item-level pagination over the lists (`{ data, next_cursor }`), as stripe-node's autoPagination:
//   for await (const post of client.paginate('/api/agent/v1/pipelines/{id}/posts', { params: { path: { id } } })) ...
//   const first50 = await client.paginate(path, init).toArray({ limit: 50 });
// Pages are fetched one at a time, as the iteration reaches them; breaking out of the loop stops.
import type { Client, MaybeOptionalInit } from 'openapi-fetch';
import { ContentPipelineError } from './errors.js';
import type { ClientPaths } from './idempotency.js';

/** A page of a list operation. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

type ItemOf<Op> = Op extends { responses: { 200: { content: { 'application/json': { data: Array<infer T>; next_cursor: unknown } } } } } ? T : never;
/** Every GET path that answers a list. */
export type ListPath = { [P in keyof ClientPaths]: [ItemOf<ClientPaths[P]['get']>] extends [never] ? never : P }[keyof ClientPaths];
/** The item type of a list path. */
export type ListItem<P extends ListPath> = ItemOf<ClientPaths[P]['get']>;
/** The options of the list's GET (its path and query parameters); `cursor` is the pager's. */
export type ListInit<P extends ListPath> = MaybeOptionalInit<ClientPaths[P], 'get'>;

/** The most items `toArray` collects (a list bigger than this is iterated, not collected). */
export const MAX_TO_ARRAY = 10_000;

export class AutoPager<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  /** Every page, from the first (or the `cursor` given to `paginate`) to the last. */
  async *pages(): AsyncGenerator<Page<T>> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** The first `limit` items (at most MAX_TO_ARRAY), fetching only the pages needed. */
  async toArray(opts: { limit: number }): Promise<T[]> {
    if (!Number.isInteger(opts?.limit) || opts.limit < 1 || opts.limit > MAX_TO_ARRAY) {
      throw new RangeError(`toArray needs a limit from 1 to ${MAX_TO_ARRAY} (iterate with for await for more).`);
    }
    const out: T[] = [];
    for await (const item of this) {
      out.push(item);
      if (out.length >= opts.limit) break;
    }
    return out;
  }
}

type LooseGet = (url: string, init: Record<string, unknown>) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** The pager of one list: `init` as for `client.GET(path, init)`; its `query.cursor`, if any, is where it starts. */
export function paginate<P extends ListPath>(client: Client<ClientPaths>, path: P, init?: ListInit<P>): AutoPager<ListItem<P>> {
  // The compile-time signature of GET needs one literal path; `P` is any of the list paths.
  const get = client.GET as unknown as LooseGet;
  const base = (init ?? {}) as { params?: { query?: Record<string, unknown> } };
  return new AutoPager<ListItem<P>>(async (cursor) => {
    const query = { ...base.params?.query, ...(cursor ? { cursor } : {}) };
    const { data, error, response } = await get(path, { ...base, params: { ...base.params, query } });
    if (!response.ok || error !== undefined) throw ContentPipelineError.fromResponse(response, error);
    return data as Page<ListItem<P>>;
  });
}
