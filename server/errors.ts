// The one error type the domain and the HTTP layer raise. The error handler turns it into the
// envelope `{ error: { code, message, suggested_action?, suggested_endpoint? } }`.
import type { components } from '../generated/api.js';

export type ErrorCode = components['schemas']['ErrorCode'];

export interface ErrorExtras {
  suggestedAction?: string;
  suggestedEndpoint?: string;
  platform?: components['schemas']['Platform'];
  /** The HTTP status an upstream answered (502 backend_unavailable). */
  upstreamStatus?: number;
  headers?: Record<string, string>;
  /** Overrides the default of `AppError.retryable`. */
  retryable?: boolean;
}

export class AppError extends Error {
  /**
   * Whether the same work may succeed if done again later (a run is retried, not failed): an
   * upstream that failed (`backend_unavailable`), unless its own answer was final (a 404 page).
   */
  readonly retryable: boolean;

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extras: ErrorExtras = {},
  ) {
    super(message);
    const upstream = extras.upstreamStatus;
    this.retryable = extras.retryable ?? (code === 'backend_unavailable' && (upstream === undefined || upstreamMayRecover(upstream)));
  }

  envelope(): components['schemas']['Error'] {
    const error: components['schemas']['Error']['error'] = { code: this.code, message: this.message };
    if (this.extras.suggestedAction) error.suggested_action = this.extras.suggestedAction;
    if (this.extras.suggestedEndpoint) error.suggested_endpoint = this.extras.suggestedEndpoint;
    if (this.extras.platform) error.platform = this.extras.platform;
    if (this.extras.upstreamStatus !== undefined) error.upstream_status = this.extras.upstreamStatus;
    return { error };
  }
}

export const API_PREFIX = '/api/agent/v1';

/**
 * Whether the same request may get another answer from an upstream that answered `status`: a
 * 5xx, 408 Request Timeout, 425 Too Early or 429 Too Many Requests may pass; any other 4xx will not.
 */
export function upstreamMayRecover(status: number): boolean {
  return status >= 500 || status === 408 || status === 425 || status === 429;
}

// The factories: every AppError of the server is built by one of these, so that a code always
// comes with its status (and a `retry_later` with its 409). `new AppError(...)` is for this file.

/** 400 (or 405, 408, 413, 414, 415, 431: the HTTP status that says more) bad_request. */
export const badRequest = (message: string, extras: ErrorExtras & { status?: 400 | 405 | 408 | 413 | 414 | 415 | 431 } = {}) => {
  const { status = 400, ...rest } = extras;
  return new AppError(status, 'bad_request', message, rest);
};
/** 401 unauthorized. */
export const unauthorized = (message: string, extras?: ErrorExtras) => new AppError(401, 'unauthorized', message, extras);
/** 403 forbidden: never allowed, whatever the state. */
export const forbidden = (message: string, extras?: ErrorExtras) => new AppError(403, 'forbidden', message, extras);
/** The workspace's approval gate refuses: a person (or a token with `approve`) must approve first. */
export const approvalRequired = (message: string, extras?: ErrorExtras) => new AppError(403, 'approval_required', message, extras);
/** 404 not_found with the usual message: `No ${what} with this id in your workspace.` */
export const notFound = (what: string, extras?: ErrorExtras) => new AppError(404, 'not_found', `No ${what} with this id in your workspace.`, extras);
/** 404 not_found with a message of its own (a route, an operator's resource). */
export const missing = (message: string, extras?: ErrorExtras) => new AppError(404, 'not_found', message, extras);
/** 409 state_conflict: the resource's state forbids it. */
export const stateConflict = (message: string, extras?: ErrorExtras) => new AppError(409, 'state_conflict', message, extras);
/** 409 state_conflict with `suggested_action: retry_later`: the same request again, in a moment, may pass. */
export const retryLater = (message: string, extras?: ErrorExtras) =>
  new AppError(409, 'state_conflict', message, { suggestedAction: 'retry_later', ...extras });
/** 422 validation_failed: `${field} ${problem}` (the message names the field). */
export const validationFailed = (field: string, problem: string, extras?: ErrorExtras) => new AppError(422, 'validation_failed', `${field} ${problem}`, extras);
/** 422 validation_failed with a message that already names the field (the validator's). */
export const invalid = (message: string, extras?: ErrorExtras) => new AppError(422, 'validation_failed', message, extras);
/** 424 credential_missing or credential_dead. */
export const credentialError = (code: 'credential_missing' | 'credential_dead', message: string, extras?: ErrorExtras) =>
  new AppError(424, code, message, extras);
/** 429 rate_limited, with Retry-After. */
export const rateLimited = (message: string, retryAfterSeconds: number, headers: Record<string, string> = {}) =>
  new AppError(429, 'rate_limited', message, { headers: { 'Retry-After': String(retryAfterSeconds), ...headers } });
/**
 * 502 (an upstream failed) or 503 (this service cannot do it now) backend_unavailable; retryable
 * unless the upstream's own answer (`upstreamStatus`) was final.
 */
export const backendUnavailable = (message: string, extras: ErrorExtras & { status?: 502 | 503 } = {}) => {
  const { status = 502, ...rest } = extras;
  return new AppError(status, 'backend_unavailable', message, rest);
};
/** 500 internal_error: a bug of ours; the details go to the log, not to the caller. */
export const internalError = () => new AppError(500, 'internal_error', 'Something went wrong on our side. Quote the X-Request-Id header when you report it.');
