// Exit codes and error reports. Scripts decide on the exit code; people read the report on stderr:
// the error code, the message, the suggested action and endpoint, and the request id.
import { ContentPipelineError, errorReport, RunTimeoutError, type ErrorKind } from '../../typescript/src/index.js';

/** The documented exit codes (README, `cpa --help`). */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  authentication: 3,
  validation: 4,
  credential: 5,
  rateLimited: 6,
  notFound: 7,
  state: 8,
  unavailable: 9,
  runFailed: 10,
  timedOut: 11,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0   success
  1   unexpected error (a bug: please report it)
  2   usage error (unknown command or option, missing argument)
  3   authentication: no token, or the token was refused (unauthorized)
  4   validation: the request was refused as invalid (validation_failed, bad_request)
  5   credential: a platform credential is missing or dead (credential_missing, credential_dead)
  6   rate limited: the token's quota is spent (rate_limited), even after the retries
  7   not found: no such resource in your workspace (not_found)
  8   state: the resource's state forbids it (state_conflict, forbidden, approval_required)
  9   unavailable: the server cannot be reached, or failed (backend_unavailable, internal_error)
  10  \`cpa wait\` (or --wait): the run failed
  11  \`cpa wait\` (or --wait): the run did not finish within --timeout
  130, 143  ended by Ctrl-C (SIGINT) or SIGTERM, as a shell reports any command a signal ended`;

const BY_KIND: Record<ErrorKind, number> = {
  authentication: EXIT.authentication,
  validation: EXIT.validation,
  bad_request: EXIT.validation,
  credential: EXIT.credential,
  rate_limit: EXIT.rateLimited,
  not_found: EXIT.notFound,
  state: EXIT.state,
  backend_unavailable: EXIT.unavailable,
  internal: EXIT.unavailable,
};

/** An error of the command line itself (no token, a bad option value, a failed run). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** A `fetch` that failed before any HTTP answer (connection refused, DNS, TLS). */
function networkCause(err: unknown): string | null {
  if (!(err instanceof TypeError)) return null;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? err.message;
}

export interface Report {
  exitCode: number;
  json: Record<string, unknown>;
  lines: string[];
}

/** What to print, and the exit code, for anything a command threw. */
export function reportFor(err: unknown, ctx: { baseUrl?: string; idempotencyKey?: string }): Report {
  const retry = ctx.idempotencyKey ? `To retry safely, run the same command with --idempotency-key ${ctx.idempotencyKey}` : null;
  if (err instanceof ContentPipelineError) {
    const lines = [`Error: ${err.code} (HTTP ${err.status}): ${err.message}`];
    if (err.suggestedAction) lines.push(`  Suggested action: ${err.suggestedAction}${err.suggestedEndpoint ? ` → ${err.suggestedEndpoint}` : ''}`);
    if (err.upstreamStatus !== null) lines.push(`  Upstream answered: HTTP ${err.upstreamStatus}`);
    if (err.retryAfterSeconds !== null) lines.push(`  Retry after: ${err.retryAfterSeconds} s`);
    lines.push(`  Request id: ${err.requestId ?? '(none)'}`);
    if (retry && err.status >= 500) lines.push(`  ${retry}`);
    return { exitCode: BY_KIND[err.kind] ?? EXIT.unexpected, lines, json: errorReport(err) };
  }
  if (err instanceof CliError) {
    const lines = [`Error: ${err.message}`, ...(err.hint ? [`  ${err.hint}`] : [])];
    return { exitCode: err.exitCode, lines, json: { error: { code: 'cli_error', message: err.message, ...(err.hint ? { hint: err.hint } : {}) } } };
  }
  if (err instanceof RunTimeoutError) {
    return { exitCode: EXIT.timedOut, lines: [`Error: ${err.message}`], json: { error: { code: 'timed_out', message: err.message }, run: err.run } };
  }
  const cause = networkCause(err);
  if (cause) {
    const message = `Cannot reach the server at ${ctx.baseUrl ?? '(unknown)'} (${cause}). Is it running? Start it with \`npm start\`, or set --base-url / CPA_BASE_URL.`;
    return { exitCode: EXIT.unavailable, lines: [`Error: ${message}`, ...(retry ? [`  ${retry}`] : [])], json: { error: { code: 'unreachable', message } } };
  }
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  return {
    exitCode: EXIT.unexpected,
    lines: [`Unexpected error: ${message}`],
    json: { error: { code: 'unexpected', message: String((err as Error)?.message ?? err) } },
  };
}
