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
