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
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extras: ErrorExtras = {},
  ) {
    super(message);
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

export const notFound = (what: string) => new AppError(404, 'not_found', `No ${what} with this id in your workspace.`);
export const validationFailed = (field: string, problem: string) =>
  new AppError(422, 'validation_failed', `${field} ${problem}`);
