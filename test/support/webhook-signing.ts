// The receivers' signature scheme, written again from the spec with node:crypto (not with the
// code under test), so that the tests check the server against the spec and not against itself.
import { createHash, createHmac, randomUUID } from 'node:crypto';

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** HMAC-SHA256 hex of `v1:{t}.POST.{path_with_query}.{sha256_hex(raw_body)}`. */
export function expectedSignature(secret: string, t: number | string, pathWithQuery: string, rawBody: string | Buffer): string {
  const bodyHash = createHash('sha256').update(rawBody).digest('hex');
  return createHmac('sha256', secret).update(`v1:${t}.POST.${pathWithQuery}.${bodyHash}`).digest('hex');
}

export const signatureHeader = (secret: string, t: number, pathWithQuery: string, rawBody: string | Buffer) =>
  `t=${t},v1=${expectedSignature(secret, t, pathWithQuery, rawBody)}`;

export const eventId = () => `evt_${randomUUID()}`;
export const deliveryId = () => `wd_${randomUUID()}`;

/** A riff.ready event (the data names no resource of the server unless given). */
export function riffReady(data: Record<string, unknown> = {}) {
  return { id: eventId(), type: 'riff.ready', created_at: new Date().toISOString(), data: { riff_id: 'art_ext1', source_post_id: 'post_ext1', ...data } };
}

/** The headers of a signed delivery of `body` (already serialized) to `path`. */
export function signedHeaders(secret: string, path: string, raw: string, event: { id: string; type: string }, t = nowSeconds()): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'X-Service-Signature': signatureHeader(secret, t, path, raw),
    'X-Service-Event-Id': event.id,
    'X-Service-Event-Type': event.type,
    'X-Service-Delivery-Id': deliveryId(),
  };
}
