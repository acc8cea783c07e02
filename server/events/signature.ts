// The signature scheme shared by the receivers (verify) and the emitter (sign):
//   signed string  v1:{t}.POST.{path_with_query}.{sha256_hex(raw_body)}
//   signature      lowercase hex HMAC-SHA256 of it with the secret
//   header         X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]
// Verification is split in two so that the receiver can refuse a bad or stale header before it
// reads a single byte of the body.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** How far (seconds) `t` may be from the receiver's clock, in either direction. */
export const TOLERANCE_SECONDS = 300;
/** More `v1=` values than this is not rotation but a malformed header. */
const MAX_SIGNATURES = 8;

export interface SignatureHeader {
  t: number;
  v1: string[];
}

export type HeaderProblem = { ok: false; message: string };

export function signedString(t: number, pathWithQuery: string, rawBody: Buffer | string): string {
  return `v1:${t}.POST.${pathWithQuery}.${createHash('sha256').update(rawBody).digest('hex')}`;
}

export function sign(secret: string, t: number, pathWithQuery: string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret)
    .update(signedString(t, pathWithQuery, rawBody))
    .digest('hex');
}

export function signatureHeader(secret: string, t: number, pathWithQuery: string, rawBody: Buffer | string): string {
  return `t=${t},v1=${sign(secret, t, pathWithQuery, rawBody)}`;
}

/**
 * Reads `t=…,v1=…`: `t` must be a whole number of seconds (given once), at least one `v1` must
 * be 64 lowercase hex characters, every `v1` must be; other keys are ignored (a later scheme).
 */
export function parseSignatureHeader(raw: string | string[] | undefined): { ok: true; header: SignatureHeader } | HeaderProblem {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, message: 'X-Service-Signature is missing.' };
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of raw.split(',')) {
    const eq = part.indexOf('=');
    const key = (eq < 0 ? part : part.slice(0, eq)).trim();
    const value = eq < 0 ? '' : part.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== null) return { ok: false, message: 'X-Service-Signature gives t more than once.' };
      if (!/^\d{1,12}$/.test(value)) return { ok: false, message: 'X-Service-Signature t is not a number of seconds.' };
      t = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/.test(value)) return { ok: false, message: 'X-Service-Signature v1 is not 64 lowercase hexadecimal characters.' };
      v1.push(value);
    }
  }
  if (t === null) return { ok: false, message: 'X-Service-Signature has no t.' };
  if (!v1.length) return { ok: false, message: 'X-Service-Signature has no v1.' };
  if (v1.length > MAX_SIGNATURES) return { ok: false, message: `X-Service-Signature has more than ${MAX_SIGNATURES} v1 values.` };
  return { ok: true, header: { t, v1 } };
}

/** The freshness rule: `t` within ±300 seconds of now. */
export function checkTimestamp(header: SignatureHeader, nowMs: number): HeaderProblem | { ok: true } {
  const skew = Math.abs(Math.floor(nowMs / 1000) - header.t);
  if (skew > TOLERANCE_SECONDS) return { ok: false, message: `Signature timestamp is more than ${TOLERANCE_SECONDS} seconds from now.` };
  return { ok: true };
}

/** Whether one of the header's `v1` values is the signature of this request (constant-time compare). */
export function signatureMatches(secret: string, header: SignatureHeader, pathWithQuery: string, rawBody: Buffer): boolean {
  const expected = Buffer.from(sign(secret, header.t, pathWithQuery, rawBody), 'hex');
  let match = false;
  // Every value is compared (no early exit), so that timing says nothing about which one matched.
  for (const v of header.v1) match = timingSafeEqual(Buffer.from(v, 'hex'), expected) || match;
  return match;
}
