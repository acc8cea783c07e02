// Adapter HTTP through the shared outbound client, with upstream answers mapped to AdapterError
// kinds once for every adapter.
import { OutboundError, type OutboundRequest, type OutboundResponse } from '../outbound/types.js';
import { AdapterError, type AdapterContext } from './types.js';

export const ADAPTER_TIMEOUT_MS = 15_000;
const MAX_BYTES = 8 * 1024 * 1024;

export interface UpstreamCall extends Omit<OutboundRequest, 'proxyUrl'> {
  /** Says what was asked, for messages: "the feed", "verify_credentials". */
  what: string;
  /** When true, 401/403 mean the credential is refused; otherwise they are a refusal like any 4xx. */
  authenticated?: boolean;
}

function fromOutbound(err: OutboundError, what: string): AdapterError {
  if (err.kind === 'timeout' || err.kind === 'network') return new AdapterError('unavailable', `${what}: ${err.message}`);
  if (err.kind === 'too_large' || err.kind === 'too_many_redirects') return new AdapterError('invalid_response', `${what}: ${err.message}`);
  // A URL we refuse to fetch (not public, wrong scheme): the handle (or the proxy) cannot work.
  return new AdapterError('invalid_input', `${what}: ${err.message}`, null, /proxy/i.test(err.message) ? 'proxy_url' : 'handle');
}

/**
 * When a 429 (or 503) says the upstream can be asked again: `Retry-After` (seconds or an HTTP
 * date), or the `x-rate-limit-reset` / `x-ratelimit-reset` epoch seconds of X and others.
 */
export function retryAtOf(res: OutboundResponse, now: Date): Date | null {
  const reset = res.headers.get('x-rate-limit-reset') ?? res.headers.get('x-ratelimit-reset');
  if (reset && /^\d{9,11}$/.test(reset.trim())) return new Date(Number(reset.trim()) * 1000);
  const after = res.headers.get('retry-after')?.trim();
  if (!after) return null;
  if (/^\d{1,7}$/.test(after)) return new Date(now.getTime() + Number(after) * 1000);
  const at = Date.parse(after);
  return Number.isNaN(at) ? null : new Date(at);
}

/** Maps a non-2xx answer to an AdapterError (a short quote of the upstream's message included). */
export function statusError(res: OutboundResponse, what: string, authenticated: boolean, now: Date = new Date()): AdapterError {
  const s = res.status;
  const detail = upstreamMessage(res);
  const msg = `${what} answered HTTP ${s}${detail ? `: ${detail}` : ''}`;
  if (authenticated && (s === 401 || s === 403)) return new AdapterError('credential_rejected', msg, s);
  if (s === 404 || s === 410) return new AdapterError('not_found', msg, s);
  if (s === 408 || s === 429 || s >= 500) return new AdapterError('unavailable', msg, s, null, s === 429 || s === 503 ? retryAtOf(res, now) : null);
  return new AdapterError('rejected', msg, s);
}

/** The upstream's own error text, when it gave one in a usual place (`error`, `message`). */
function upstreamMessage(res: OutboundResponse): string {
  try {
    const body = res.json<Record<string, unknown>>();
    const m = [body.error_description, body.message, body.detail, body.error].find((v) => typeof v === 'string');
    return typeof m === 'string' ? m.slice(0, 200) : '';
  } catch {
    return '';
  }
}

/** The upstream's answer, whatever its status (a network failure is an AdapterError). */
export async function exchange(ctx: AdapterContext, call: UpstreamCall): Promise<OutboundResponse> {
  const { what, authenticated: _authenticated, ...req } = call;
  try {
    return await ctx.outbound.request({ timeoutMs: ADAPTER_TIMEOUT_MS, maxBytes: MAX_BYTES, ...req, proxyUrl: ctx.proxyUrl });
  } catch (err) {
    if (err instanceof OutboundError) throw fromOutbound(err, what);
    throw err;
  }
}

export async function send(ctx: AdapterContext, call: UpstreamCall): Promise<OutboundResponse> {
  const res = await exchange(ctx, call);
  if (res.status < 200 || res.status > 299) throw statusError(res, call.what, call.authenticated === true, ctx.now);
  return res;
}

/** The JSON of an answer already checked, or `invalid_response`. */
export function readJson<T>(res: OutboundResponse, what: string): T {
  try {
    return res.json<T>();
  } catch {
    throw new AdapterError('invalid_response', `${what} did not answer JSON`, res.status);
  }
}

export async function sendJson<T>(ctx: AdapterContext, call: UpstreamCall): Promise<T> {
  const res = await send(ctx, { ...call, headers: { accept: 'application/json', ...call.headers } });
  return readJson<T>(res, call.what);
}

export const jsonBody = (value: unknown) => ({ body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });

/** `make()` once per `ctx.memo` (one publish run) and `key`; every call when there is no memo. A failure is not kept. */
export function memoized<T>(ctx: AdapterContext, key: string, make: () => Promise<T>): Promise<T> {
  if (!ctx.memo) return make();
  const known = ctx.memo.get(key) as Promise<T> | undefined;
  if (known) return known;
  const made = make();
  ctx.memo.set(key, made);
  made.catch(() => ctx.memo?.delete(key));
  return made;
}
