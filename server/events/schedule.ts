// The emitter's rules, kept apart from the worker so that the CLI and the tests read the same
// numbers: how an answer is classified, and when the next attempt is due.
import { OutboundError } from '../outbound/types.js';

/** At most this many attempts in total; after the last failure the delivery stays `failed`. */
export const MAX_ATTEMPTS = 7;
/** Delay before attempt 2, 3, … 7, after the previous attempt finished (spec: 60 s, 5 min, 30 min, 2 h, 6 h, 24 h). */
export const RETRY_DELAYS_MS = [60, 5 * 60, 30 * 60, 2 * 3600, 6 * 3600, 24 * 3600].map((s) => s * 1000);
/** Each delay is stretched by up to this share (never shortened), so that retries do not arrive in step. */
export const JITTER_SHARE = 0.1;
/** Bytes of the receiver's answer kept for audit. */
export const KEPT_RESPONSE_BYTES = 8 * 1024;

export type Outcome = 'succeeded' | 'transient' | 'fatal';

/** 2xx success; 429 and 5xx transient; every other status fatal (3xx included: redirects are not followed). */
export function classifyStatus(status: number): Outcome {
  if (status >= 200 && status < 300) return 'succeeded';
  if (status === 429 || status >= 500) return 'transient';
  return 'fatal';
}

/**
 * Network failures, timeouts and an over-long answer are transient (the receiver may do better
 * next time); a target the outbound client refuses (invalid URL, scheme, non-public address) is
 * fatal: retrying cannot change the configuration.
 */
export function classifyError(err: unknown): Outcome {
  if (err instanceof OutboundError) return ['timeout', 'network', 'too_large'].includes(err.kind) ? 'transient' : 'fatal';
  return 'transient';
}

/**
 * When attempt `attempt + 1` is due, `attempt` having finished at `finishedAt`; null when no
 * attempt is left. `jitter` is a number in [0, 1) (from the attempt's random id).
 */
export function nextAttemptAt(attempt: number, finishedAt: Date, jitter: number): Date | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1]!;
  return new Date(finishedAt.getTime() + Math.round(base * (1 + JITTER_SHARE * jitter)));
}

/** A jitter in [0, 1) from the first 32 bits of a random uuid (ids come from `deps.ids`, so tests can pin them). */
export function jitterOf(uuid: string): number {
  return parseInt(uuid.replace(/-/g, '').slice(0, 8), 16) / 2 ** 32;
}
