// The typed TypeScript client for the Content Pipeline API, built on openapi-fetch with the types
// generated from the description. Bearer auth, bounded retry on 429 honouring Retry-After, and
// typed errors by `error.code`.
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../../../generated/api.js';

export type { components, paths };
export type Schemas = components['schemas'];
export type ErrorCode = Schemas['ErrorCode'];

export interface ClientOptions {
  /** The application root, e.g. `http://127.0.0.1:8787` (paths carry `/api/agent/v1`). */
  baseUrl: string;
  token?: string;
  /** Retries after a 429 (default 3). Each waits Retry-After seconds, or 5 when it is absent. */
  maxRetries?: number;
  /** Longest single wait in seconds (default 60). */
  maxRetryWaitSeconds?: number;
  fetch?: typeof globalThis.fetch;
  /** How to wait (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
  userAgent?: string;
}

/** The kinds of failure a caller handles differently. */
export type ErrorKind = 'authentication' | 'validation' | 'credential' | 'rate_limit' | 'state' | 'not_found' | 'backend_unavailable' | 'internal' | 'bad_request';

const KIND: Record<ErrorCode, ErrorKind> = {
  bad_request: 'bad_request',
  unauthorized: 'authentication',
  forbidden: 'state',
  not_found: 'not_found',
  state_conflict: 'state',
  validation_failed: 'validation',
  credential_missing: 'credential',
  credential_dead: 'credential',
  rate_limited: 'rate_limit',
  backend_unavailable: 'backend_unavailable',
  internal_error: 'internal',
};

export class ContentPipelineError extends Error {
  readonly kind: ErrorKind;
  constructor(
    readonly status: number,
    readonly code: ErrorCode | string,
    message: string,
    readonly requestId: string | null,
    /** May be a value this client does not know: show it to the operator. */
    readonly suggestedAction: string | null,
    readonly suggestedEndpoint: string | null,
    readonly retryAfterSeconds: number | null = null,
    /** On 502 backend_unavailable: the HTTP status the upstream answered, when it answered. */
    readonly upstreamStatus: number | null = null,
  ) {
    super(message);
    this.name = 'ContentPipelineError';
    this.kind = KIND[code as ErrorCode] ?? (status >= 500 ? 'internal' : 'bad_request');
  }
}

export class AuthenticationError extends ContentPipelineError {}
export class ValidationError extends ContentPipelineError {}
export class CredentialError extends ContentPipelineError {}
export class RateLimitError extends ContentPipelineError {}
export class StateError extends ContentPipelineError {}
export class NotFoundError extends ContentPipelineError {}
export class BackendUnavailableError extends ContentPipelineError {}
export class InternalError extends ContentPipelineError {}
export class BadRequestError extends ContentPipelineError {}

const CLASSES: Record<ErrorKind, typeof ContentPipelineError> = {
  authentication: AuthenticationError,
  validation: ValidationError,
  credential: CredentialError,
  rate_limit: RateLimitError,
  state: StateError,
  not_found: NotFoundError,
  backend_unavailable: BackendUnavailableError,
  internal: InternalError,
  bad_request: BadRequestError,
};

/** Builds the typed error for an error response (its body already parsed, or not JSON at all). */
export function errorFromResponse(response: Response, body: unknown): ContentPipelineError {
  const err = (body as { error?: Schemas['Error']['error'] } | undefined)?.error;
  const code = err?.code ?? (response.status >= 500 ? 'internal_error' : 'bad_request');
  const retry = response.headers.get('Retry-After');
  const Cls = CLASSES[KIND[code as ErrorCode] ?? (response.status >= 500 ? 'internal' : 'bad_request')];
  return new Cls(
    response.status,
    code,
    err?.message ?? `HTTP ${response.status}`,
    response.headers.get('X-Request-Id'),
    err?.suggested_action ?? null,
    err?.suggested_endpoint ?? null,
    retry !== null && /^\d+$/.test(retry) ? Number(retry) : null,
    err?.upstream_status ?? null,
  );
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A fetch that retries 429 answers, waiting Retry-After seconds (5 when absent), at most `maxRetries` times. */
export function retryingFetch(opts: Pick<ClientOptions, 'maxRetries' | 'maxRetryWaitSeconds' | 'fetch' | 'sleep'>): typeof fetch {
  const base = opts.fetch ?? globalThis.fetch;
  const sleep = opts.sleep ?? defaultSleep;
  const maxRetries = opts.maxRetries ?? 3;
  const maxWait = opts.maxRetryWaitSeconds ?? 60;
  return async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    for (let attempt = 0; ; attempt++) {
      const response = await base(request.clone());
      if (response.status !== 429 || attempt >= maxRetries) return response;
      const header = response.headers.get('Retry-After');
      const seconds = header !== null && /^\d+$/.test(header) ? Number(header) : 5;
      await response.body?.cancel();
      await sleep(Math.min(seconds, maxWait) * 1000);
    }
  };
}

export type ApiClient = Client<paths>;

export function createApiClient(opts: ClientOptions): ApiClient {
  const headers: Record<string, string> = { 'User-Agent': opts.userAgent ?? 'content-pipeline-client/1' };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  return createClient<paths>({ baseUrl: opts.baseUrl.replace(/\/+$/, ''), headers, fetch: retryingFetch(opts) });
}

/**
 * Returns the data of a successful call, or throws the typed error:
 * `const p = await unwrap(client.GET('/api/agent/v1/pipelines/{id}', { params: { path: { id } } }))`.
 */
export async function unwrap<T extends { data?: unknown; error?: unknown; response: Response }>(call: Promise<T>): Promise<NonNullable<T['data']>> {
  const result = await call;
  if (result.response.ok && result.error === undefined) return result.data as NonNullable<T['data']>;
  throw errorFromResponse(result.response, result.error);
}

/** A fresh idempotency key. */
export const newIdempotencyKey = () => globalThis.crypto.randomUUID();

export * from './operations.js';
export * from './runs.js';
export * from './events.js';
export * from './imports.js';
export * from './media.js';
