// Retries with exponential backoff and jitter, as stripe-node's RequestSender does, made safe by
// the API's idempotency keys: a request is sent again after a network error, a 5xx or a
// `409 retry_later` only when sending it twice cannot do the work twice, that is when it is a
// GET (or HEAD) or carries an `idempotency_key` (the server forgets a request that ended in a
// 5xx, and replays one that succeeded). A `429` is refused before any work is done, so it is
// retried for any request, after `Retry-After`. A body that is a stream (an upload of a file)
// cannot be sent twice and is never retried: send it again with the same key.

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns retrying off). */
  maxRetries?: number;
  /** The first backoff (default 500 ms); it doubles on each retry, up to `maxRetryDelayMs`. */
  initialRetryDelayMs?: number;
  /** Longest backoff (default 5000 ms). */
  maxRetryDelayMs?: number;
  /** Longest wait for a `Retry-After`, in seconds (default 60). */
  maxRetryWaitSeconds?: number;
  fetch?: typeof globalThis.fetch;
  /** How to wait (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for the jitter (tests replace it). */
  random?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The wait before retry number `retry` (1, 2, ...): `initial * 2^(retry-1)` capped at `max`,
 * then jittered into its upper half (50-100 %) so that many clients do not retry in step, and
 * never less than `initial`.
 */
export function backoffMs(retry: number, opts: Pick<RetryOptions, 'initialRetryDelayMs' | 'maxRetryDelayMs'> = {}, random: () => number = Math.random): number {
  const initial = opts.initialRetryDelayMs ?? 500;
  const capped = Math.min(initial * 2 ** (retry - 1), opts.maxRetryDelayMs ?? 5000);
  return Math.round(Math.max(initial, capped * (0.5 + random() / 2)));
}

/** A request that can be sent again: how to rebuild it, and whether sending it twice is safe. */
interface Replay {
  make: () => Request;
  /** A GET, or a request carrying an idempotency key. */
  safe: boolean;
}

const isJson = (contentType: string | null) => contentType !== null && /\bjson\b/i.test(contentType);

/** How `request` can be sent again, or `null` when its body is a stream that can be read once. */
async function replayOf(request: Request): Promise<Replay | null> {
  const keyInQuery = new URL(request.url).searchParams.has('idempotency_key');
  if (request.body === null) {
    return { make: () => request.clone(), safe: request.method === 'GET' || request.method === 'HEAD' || keyInQuery };
  }
  if (!isJson(request.headers.get('Content-Type'))) return null;
  const text = await request.text();
  let keyInBody = false;
  try {
    const parsed = JSON.parse(text) as unknown;
    keyInBody = typeof (parsed as { idempotency_key?: unknown } | null)?.idempotency_key === 'string';
  } catch {
    // not JSON after all: sent as it is, and refused by the server
  }
  return {
    make: () => new Request(request.url, { method: request.method, headers: request.headers, body: text, signal: request.signal, redirect: request.redirect }),
    safe: keyInQuery || keyInBody,
  };
}

/** Retry-After in milliseconds, when the answer carries whole seconds. */
function retryAfterMs(response: Response, maxSeconds: number): number | null {
  const header = response.headers.get('Retry-After');
  return header !== null && /^\d+$/.test(header) ? Math.min(Number(header), maxSeconds) * 1000 : null;
}

/** True for `409` with `suggested_action: retry_later` (the same key is still being processed). */
async function isRetryLater(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  try {
    const body = (await response.clone().json()) as { error?: { suggested_action?: unknown } };
    return body?.error?.suggested_action === 'retry_later';
  } catch {
    return false;
  }
}

/**
 * How long to wait before sending the request again after `response`, or `null` to hand the
 * answer to the caller. `retry` is the number of the retry this would be (1, 2, ...).
 */
async function waitAfter(response: Response, safe: boolean, retry: number, opts: RetryOptions, random: () => number): Promise<number | null> {
  const maxWait = opts.maxRetryWaitSeconds ?? 60;
  if (response.status === 429) return retryAfterMs(response, maxWait) ?? Math.min(5, maxWait) * 1000;
  if (!safe) return null;
  if ((response.status >= 500 && response.status !== 501) || (await isRetryLater(response))) {
    return retryAfterMs(response, maxWait) ?? backoffMs(retry, opts, random);
  }
  return null;
}

/** A `fetch` that retries as described at the top of this file, at most `maxRetries` times. */
export function retryingFetch(opts: RetryOptions = {}): typeof fetch {
  const base = opts.fetch ?? globalThis.fetch;
  const sleep = opts.sleep ?? defaultSleep;
  const random = opts.random ?? Math.random;
  const maxRetries = opts.maxRetries ?? 3;
  return async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    const replay = maxRetries > 0 ? await replayOf(request) : null;
    if (!replay) return base(request);
    for (let retry = 1; ; retry++) {
      let response: Response;
      try {
        response = await base(replay.make());
      } catch (err) {
        // A network error: the request may or may not have arrived.
        if (request.signal.aborted || retry > maxRetries || !replay.safe) throw err;
        await sleep(backoffMs(retry, opts, random));
        continue;
      }
      if (retry > maxRetries) return response;
      const wait = await waitAfter(response, replay.safe, retry, opts, random);
      if (wait === null) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}
