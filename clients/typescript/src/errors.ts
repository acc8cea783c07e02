// The typed errors of the client, built from one object (as stripe-node's `StripeError.generate`):
// the error envelope of the answer plus what the HTTP layer adds (status, request id,
// Retry-After). One base class, one subclass per family of error codes, so that a caller can
// `catch (e) { if (e instanceof RateLimitError) ... }` or switch on `e.kind`.
import type { components } from '../../../generated/api.js';

export type ErrorCode = components['schemas']['ErrorCode'];
type Envelope = components['schemas']['Error']['error'];
/**
 * A code this client does not know yet. The intersection keeps the union from collapsing to
 * `string`, so that editors still offer the known `ErrorCode`s.
 */
export type UnknownErrorCode = string & Record<never, never>;

/** The kinds of failure a caller handles differently. */
export type ErrorKind =
  | 'authentication'
  | 'validation'
  | 'credential'
  | 'rate_limit'
  | 'state'
  | 'not_found'
  | 'backend_unavailable'
  | 'internal'
  | 'bad_request';

/** Everything an error carries; `ContentPipelineError.generate(raw)` picks the class. */
export interface RawError {
  status: number;
  /** Usually an `ErrorCode`; may be a code this client does not know yet. */
  code: ErrorCode | UnknownErrorCode;
  message: string;
  /** The `X-Request-Id` of the answer: quote it when reporting a problem. */
  requestId: string | null;
  /** May be a value this client does not know: show it to the operator. */
  suggestedAction: string | null;
  suggestedEndpoint: string | null;
  /** `Retry-After`, in seconds, when the answer carried one. */
  retryAfterSeconds: number | null;
  /** On 502 backend_unavailable: the HTTP status the upstream answered, when it answered. */
  upstreamStatus: number | null;
}

const KIND: Record<ErrorCode, ErrorKind> = {
  bad_request: 'bad_request',
  unauthorized: 'authentication',
  forbidden: 'state',
  approval_required: 'state',
  not_found: 'not_found',
  state_conflict: 'state',
  validation_failed: 'validation',
  credential_missing: 'credential',
  credential_dead: 'credential',
  rate_limited: 'rate_limit',
  backend_unavailable: 'backend_unavailable',
  internal_error: 'internal',
};

/** The family of a code; an unknown code falls back on its status. */
export const kindOf = (raw: Pick<RawError, 'status' | 'code'>): ErrorKind => KIND[raw.code as ErrorCode] ?? (raw.status >= 500 ? 'internal' : 'bad_request');

export class ContentPipelineError extends Error implements RawError {
  readonly kind: ErrorKind;
  readonly status: number;
  readonly code: ErrorCode | UnknownErrorCode;
  readonly requestId: string | null;
  readonly suggestedAction: string | null;
  readonly suggestedEndpoint: string | null;
  readonly retryAfterSeconds: number | null;
  readonly upstreamStatus: number | null;

  constructor(raw: RawError) {
    super(raw.message);
    this.name = new.target.name;
    this.kind = kindOf(raw);
    this.status = raw.status;
    this.code = raw.code;
    this.requestId = raw.requestId;
    this.suggestedAction = raw.suggestedAction;
    this.suggestedEndpoint = raw.suggestedEndpoint;
    this.retryAfterSeconds = raw.retryAfterSeconds;
    this.upstreamStatus = raw.upstreamStatus;
  }

  /** The error of the class that fits `raw.code`. */
  static generate(raw: RawError): ContentPipelineError {
    return new CLASSES[kindOf(raw)](raw);
  }

  /** The error of an error answer (its body already parsed, or not JSON at all). */
  static fromResponse(response: Response, body: unknown): ContentPipelineError {
    const err = (body as { error?: Partial<Envelope> } | undefined)?.error;
    const retry = response.headers.get('Retry-After');
    return ContentPipelineError.generate({
      status: response.status,
      code: err?.code ?? (response.status >= 500 ? 'internal_error' : 'bad_request'),
      message: err?.message ?? `HTTP ${response.status}`,
      requestId: response.headers.get('X-Request-Id'),
      suggestedAction: err?.suggested_action ?? null,
      suggestedEndpoint: err?.suggested_endpoint ?? null,
      retryAfterSeconds: retry !== null && /^\d+$/.test(retry) ? Number(retry) : null,
      upstreamStatus: err?.upstream_status ?? null,
    });
  }
}

/** 401 unauthorized: no token, or one the server does not know. */
export class AuthenticationError extends ContentPipelineError {}
/** 422 validation_failed: the message names the field. */
export class ValidationError extends ContentPipelineError {}
/** 424 credential_missing / credential_dead: connect (again) the platform account. */
export class CredentialError extends ContentPipelineError {}
/** 429 rate_limited: wait `retryAfterSeconds`. */
export class RateLimitError extends ContentPipelineError {}
/** 403 forbidden / 409 state_conflict: the resource's state forbids it (or `retry_later`). */
export class StateError extends ContentPipelineError {}
/** 404 not_found: no such resource in this workspace. */
export class NotFoundError extends ContentPipelineError {}
/** 502 backend_unavailable: an upstream (a platform, a page, a model) failed; see `upstreamStatus`. */
export class BackendUnavailableError extends ContentPipelineError {}
/** 500 internal_error: a bug of the server; quote `requestId`. */
export class InternalError extends ContentPipelineError {}
/** 400 bad_request: the request could not be read. */
export class BadRequestError extends ContentPipelineError {}

const CLASSES: Record<ErrorKind, new (raw: RawError) => ContentPipelineError> = {
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

/** The typed error of an error answer (kept for callers of the earlier name). */
export const errorFromResponse = (response: Response, body: unknown) => ContentPipelineError.fromResponse(response, body);
