// The typed TypeScript client for the Content Pipeline API, built on openapi-fetch with the types
// generated from the description. It behaves like stripe-node: bearer auth; idempotency keys
// generated when the caller gives none (idempotency.ts); retries with exponential backoff and
// jitter when sending twice is safe, and 429 after Retry-After (retry.ts); item-level
// pagination (pagination.ts); typed errors built from the error envelope (errors.ts).
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../../../generated/api.js';
import { ContentPipelineError } from './errors.js';
import { idempotencyMiddleware, type ClientPaths, type IdempotencyOptions } from './idempotency.js';
import { AutoPager, paginate, type ListInit, type ListItem, type ListPath } from './pagination.js';
import { retryingFetch, type RetryOptions } from './retry.js';

export type { components, paths };
export type Schemas = components['schemas'];

export interface ClientOptions extends RetryOptions {
  /** The application root, e.g. `http://127.0.0.1:8787` (paths carry `/api/agent/v1`). */
  baseUrl: string;
  token?: string;
  userAgent?: string;
  /** Makes an idempotency key when a call that takes one has none (default: a random UUID). */
  newIdempotencyKey?: IdempotencyOptions['newKey'];
  /** Called with the idempotency key of each call that takes one (given or generated). */
  onIdempotencyKey?: IdempotencyOptions['onKey'];
}

export interface ApiClient extends Client<ClientPaths> {
  /**
   * The items of a list, page after page as the iteration reaches them:
   * `for await (const post of client.paginate('/api/agent/v1/pipelines/{id}/posts', { params: { path: { id } } }))`,
   * or `await client.paginate(...).toArray({ limit: 100 })`.
   */
  paginate<P extends ListPath>(path: P, init?: ListInit<P>): AutoPager<ListItem<P>>;
}

export function createApiClient(opts: ClientOptions): ApiClient {
  const headers: Record<string, string> = { 'User-Agent': opts.userAgent ?? 'content-pipeline-client/1' };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  const client = createClient<ClientPaths>({ baseUrl: opts.baseUrl.replace(/\/+$/, ''), headers, fetch: retryingFetch(opts) });
  client.use(idempotencyMiddleware({ newKey: opts.newIdempotencyKey, onKey: opts.onIdempotencyKey }));
  return Object.assign(client, { paginate: <P extends ListPath>(path: P, init?: ListInit<P>) => paginate(client, path, init) });
}

/**
 * Returns the data of a successful call, or throws the typed error:
 * `const p = await unwrap(client.GET('/api/agent/v1/pipelines/{id}', { params: { path: { id } } }))`.
 */
export async function unwrap<T extends { data?: unknown; error?: unknown; response: Response }>(call: Promise<T>): Promise<NonNullable<T['data']>> {
  const result = await call;
  if (result.response.ok && result.error === undefined) return result.data as NonNullable<T['data']>;
  throw ContentPipelineError.fromResponse(result.response, result.error);
}

export * from './errors.js';
export * from './retry.js';
export * from './idempotency.js';
export * from './pagination.js';
export * from './operations.js';
export * from './runs.js';
export * from './events.js';
export * from './imports.js';
export * from './media.js';
export * from './upload-file.js';
