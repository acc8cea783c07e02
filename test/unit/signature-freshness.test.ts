// The freshness rule of a signed event (server/events/signature.ts): `t` within ±300 seconds of the
// receiver's clock, whole seconds, both edges inclusive; one second more either way is refused.
import { describe, expect, it } from 'vitest';
import { checkTimestamp, TOLERANCE_SECONDS, type SignatureHeader } from '../../server/events/signature.js';

const at = (t: number): SignatureHeader => ({ t, v1: [] });

describe('checkTimestamp', () => {
  const nowMs = 1_795_840_000_999; // a fraction of a second into the second: it does not count
  const now = Math.floor(nowMs / 1000);

  it('accepts t up to 300 s either side of now', () => {
    for (const t of [now, now - TOLERANCE_SECONDS, now + TOLERANCE_SECONDS]) expect(checkTimestamp(at(t), nowMs)).toEqual({ ok: true });
  });

  it('refuses t 301 s in the past or the future, saying why', () => {
    for (const t of [now - TOLERANCE_SECONDS - 1, now + TOLERANCE_SECONDS + 1])
      expect(checkTimestamp(at(t), nowMs)).toEqual({ ok: false, message: expect.stringContaining('more than 300 seconds') });
  });
});
