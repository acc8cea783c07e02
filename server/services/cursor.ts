// Opaque, signed list cursors. A cursor carries the position of the last item of a page and the
// list it belongs to (its scope); the HMAC makes a tampered or foreign cursor detectable.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from '../errors.js';

const invalid = () => badRequest('The cursor is not valid for this list. Start again without a cursor.');

function sign(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url').slice(0, 22);
}

export function encodeCursor(key: Buffer, scope: string, position: Record<string, string>): string {
  const payload = Buffer.from(JSON.stringify({ s: scope, p: position }), 'utf8').toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

export function decodeCursor(key: Buffer, scope: string, cursor: string): Record<string, string> {
  const dot = cursor.indexOf('.');
  if (dot <= 0) throw invalid();
  const payload = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1), 'utf8');
  const expected = Buffer.from(sign(key, payload), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const obj = parsed as { s?: unknown; p?: unknown };
  if (obj.s !== scope || typeof obj.p !== 'object' || obj.p === null) throw invalid();
  return obj.p as Record<string, string>;
}

/** The (time, id) position a page of a list ordered by a time then an id ends at, as a cursor. */
export function encodeTimeCursor(key: Buffer, scope: string, at: Date, id: string): string {
  return encodeCursor(key, scope, { t: at.toISOString(), i: id });
}

/** The (time, id) position of a cursor made by `encodeTimeCursor` for `scope`; null without a cursor (the first page). */
export function decodeTimeCursor(key: Buffer, scope: string, cursor: string | undefined): { at: Date; id: string } | null {
  if (cursor === undefined) return null;
  const pos = decodeCursor(key, scope, cursor);
  const at = new Date(pos.t ?? '');
  if (Number.isNaN(at.getTime()) || typeof pos.i !== 'string') throw invalid();
  return { at, id: pos.i };
}
