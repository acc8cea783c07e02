// What an adapter failure means to a caller: an HTTP error for the synchronous operations
// (connect, publish, from-intent), or a run failure / retry for jobs. One table, so every
// operation names a platform problem the same way.
import { AdapterError, adapterFor, type Platform } from '../adapters/index.js';
import { API_PREFIX, AppError, backendUnavailable, credentialError, invalid } from '../errors.js';
import { JobError, TransientError } from '../jobs/registry.js';

export const CONNECT_ENDPOINT = `POST ${API_PREFIX}/accounts/connect`;

const connectHint = (platform: Platform) => ({ suggestedAction: 'connect_account', suggestedEndpoint: CONNECT_ENDPOINT, platform });

export function credentialMissing(platform: Platform, handle: string): AppError {
  return credentialError('credential_missing', `No connected ${platform} account for ${handle}; connect it first.`, connectHint(platform));
}

export function credentialDead(platform: Platform, handle: string, why: string | null): AppError {
  const reason = why ? `: ${why}` : '';
  return credentialError(
    'credential_dead',
    `The ${platform} credential of ${handle} no longer works${reason}. Connect the account again with a fresh credential.`,
    connectHint(platform),
  );
}

/**
 * An adapter error as an HTTP error. `probe`: during a credential probe, any answer that is not
 * a success means the probe failed (424 credential_dead); elsewhere it is an upstream failure (502).
 */
export function upstreamAppError(err: unknown, q: { platform: Platform; handle: string; probe: boolean }): unknown {
  if (!(err instanceof AdapterError)) return err;
  switch (err.kind) {
    case 'credential_rejected':
      return credentialDead(q.platform, q.handle, err.message);
    case 'invalid_input':
      return invalid(`body.${err.field ?? 'handle'}: ${err.message}`);
    case 'unavailable':
      return backendUnavailable(`The ${q.platform} upstream is not reachable right now (${err.message}); retry later.`);
    default:
      // A platform without credentials (rss): nothing to reconnect; the address is what is wrong.
      if (q.probe && !adapterFor(q.platform).needsCredentials) return invalid(`body.handle: ${err.message}`);
      if (q.probe) return credentialError('credential_dead', `The ${q.platform} probe of ${q.handle} failed: ${err.message}.`, connectHint(q.platform));
      return backendUnavailable(`The ${q.platform} upstream refused the request: ${err.message}.`);
  }
}

/** Run error codes of ingest (stored on the run and sent in `operator.error`). */
const JOB_CODES: Record<AdapterError['kind'], string> = {
  credential_rejected: 'credential_dead',
  not_found: 'handle_not_found',
  unavailable: 'backend_unavailable',
  rejected: 'upstream_rejected',
  invalid_response: 'upstream_invalid',
  invalid_input: 'upstream_invalid',
};

/** An adapter error as a job outcome: retry (TransientError) or fail (JobError). */
export function upstreamJobError(err: unknown, platform: Platform): unknown {
  if (!(err instanceof AdapterError)) return err;
  const message = `${platform}: ${err.message}`;
  if (err.kind === 'unavailable') return new TransientError(message, JOB_CODES.unavailable, err.status, err.retryAt);
  return new JobError(JOB_CODES[err.kind], message, err.status);
}
