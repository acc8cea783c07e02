// Generic helpers on top of the typed client: calling an operation known only at run time (the
// MCP server derives its tools from the description), and reporting an
// error the same way everywhere (the CLI's --json errors, the MCP tool errors).
import { unwrap, type ApiClient } from './client.js';
import type { ContentPipelineError } from './errors.js';

/** One call of an operation, described by its method and path template as the description has them. */
export interface OperationRequest {
  method: string;
  /** The path template, e.g. `/api/agent/v1/pipelines/{id}`. */
  path: string;
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, string> };
  body?: unknown;
}

type LooseRequest = (method: string, url: string, init: Record<string, unknown>) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * Calls an operation chosen at run time through the same client (auth, retries, typed errors).
 * Returns the data of a success, or throws the typed error like `unwrap`.
 */
export async function callOperation(client: ApiClient, req: OperationRequest): Promise<unknown> {
  // The compile-time signature needs a literal path; here the path comes from the description.
  const request = client.request as unknown as LooseRequest;
  const init: Record<string, unknown> = { params: req.params ?? {} };
  if (req.body !== undefined) init.body = req.body;
  return unwrap(request(req.method.toLowerCase(), req.path, init));
}

/** A typed error as plain JSON: the envelope the server sent, its HTTP status and request id, and Retry-After. */
export function errorReport(err: ContentPipelineError) {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.suggestedAction ? { suggested_action: err.suggestedAction } : {}),
      ...(err.suggestedEndpoint ? { suggested_endpoint: err.suggestedEndpoint } : {}),
      ...(err.upstreamStatus !== null ? { upstream_status: err.upstreamStatus } : {}),
    },
    status: err.status as number | null,
    request_id: err.requestId,
    ...(err.retryAfterSeconds !== null ? { retry_after_seconds: err.retryAfterSeconds } : {}),
  };
}
