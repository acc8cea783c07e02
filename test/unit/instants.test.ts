// Dates read from outside (issue 30): whatever string an export, a feed or a timeline writes,
// the parsers answer a valid RFC 3339 instant of the years 0001–9999 that reads back to itself,
// or null; never an exception, never a year the contract's `date-time` or a database refuses.
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { feedDate } from '../../server/adapters/feed-dates.js';
import { dated, dateOf } from '../../server/adapters/text.js';
import { instantText, isInstantText, MAX_INSTANT_MS, MIN_INSTANT_MS, representable } from '../../server/lib/instants.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = ((formatsPlugin as unknown as { default?: typeof formatsPlugin }).default ?? formatsPlugin) as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020();
addFormats(ajv);
/** The contract's Timestamp, as the server validates its answers. */
const timestamp = ajv.compile({ type: 'string', format: 'date-time', maxLength: 40 });

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** ISO-like strings in and out of range: extended years (`+275760`, `-000001`), year 0000, months and days out of range, offsets, fractions, spaces. */
const isoLike = fc
  .record({
    sign: fc.constantFrom('', '', '+', '-'),
    year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 10000, max: 300000 }), fc.constantFrom(0, 1, 9999, 10000, 275760, 275761)),
    yearWidth: fc.constantFrom(4, 4, 6),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    time: fc.option(
      fc.tuple(fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 61 }), fc.option(fc.integer({ min: 0, max: 999 }))),
    ),
    sep: fc.constantFrom('T', ' ', 't'),
    zone: fc.constantFrom('Z', '', 'z', '+00:00', '-23:59', '+14:00', '+0530', 'GMT'),
  })
  .map(({ sign, year, yearWidth, month, day, time, sep, zone }) => {
    const date = `${sign}${pad(year, yearWidth)}-${pad(month, 2)}-${pad(day, 2)}`;
    if (!time) return date;
    const [h, m, s, ms] = time;
    return `${date}${sep}${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}${ms === null ? '' : `.${pad(ms, 3)}`}${zone}`;
  });

/** Any input a reader may meet: ISO-like text, RFC 822 text, arbitrary strings, numbers (epoch ms). */
const anyInput = fc.oneof(
  isoLike,
  fc.string(),
  fc.double(),
  fc.integer({ min: -9e15, max: 9e15 }),
  fc
    .tuple(
      fc.integer({ min: 0, max: 40 }),
      fc.constantFrom('Jan', 'Sep', 'Set', 'Foo'),
      fc.integer({ min: 0, max: 300000 }),
      fc.constantFrom('', ' +0000', ' -2359', ' GMT'),
    )
    .map(([d, mon, y, z]) => `Mon, ${d} ${mon} ${y} 12:00:00${z}`),
);

/** The answer of a parser is a representable instant whose RFC 3339 text reads back to it, or null. */
function checkInstant(d: Date | null) {
  if (d === null) return;
  const text = d.toISOString();
  expect(timestamp(text), text).toBe(true);
  expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(Number(text.slice(0, 4))).toBeGreaterThanOrEqual(1);
  expect(new Date(text).getTime()).toBe(d.getTime());
  expect(instantText(d)).toBe(text);
  expect(isInstantText(text)).toBe(true);
}

describe('dates read from outside', () => {
  it('dateOf: any input yields a valid RFC 3339 instant of the years 0001–9999 that round-trips, or null; never throws', () => {
    fc.assert(
      fc.property(anyInput, (v) => {
        checkInstant(dateOf(v));
      }),
      { numRuns: 3000 },
    );
  });

  it('feedDate: the same for anything a feed writes', () => {
    fc.assert(
      fc.property(fc.oneof(isoLike, fc.string()), (v) => {
        checkInstant(feedDate(v));
      }),
      { numRuns: 3000 },
    );
    // RFC 822 years of four digits are the years written (Date.UTC would read 0018 as 1918).
    expect(feedDate('Mon, 24 Sep 0018 12:00:00 GMT')?.toISOString()).toBe('0018-09-24T12:00:00.000Z');
    expect(feedDate('Mon, 24 Sep 10000 12:00:00 GMT')).toBeNull();
  });

  it('every instant of the years 0001–9999 is read back exactly; every instant outside them is null', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_INSTANT_MS, max: MAX_INSTANT_MS }), (ms) => {
        const text = new Date(ms).toISOString();
        expect(dateOf(text)?.getTime()).toBe(ms);
        expect(feedDate(text)?.getTime()).toBe(ms);
      }),
    );
    const outside = fc.oneof(fc.integer({ min: -8.64e15, max: MIN_INSTANT_MS - 1 }), fc.integer({ min: MAX_INSTANT_MS + 1, max: 8.64e15 }));
    fc.assert(
      fc.property(outside, (ms) => {
        const text = new Date(ms).toISOString(); // `+010000-…`, `-000001-…`, `0000-…`
        expect(dateOf(text)).toBeNull();
        expect(dateOf(ms)).toBeNull();
        expect(feedDate(text)).toBeNull();
        expect(representable(new Date(ms))).toBeNull();
        expect(instantText(new Date(ms))).toBeNull();
      }),
    );
    for (const odd of ['+275760-09-13T00:00:00Z', '+010000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z', '0000-12-31T23:59:59Z', '9999-12-31T23:59:59-00:01'])
      expect(dateOf(odd), odd).toBeNull();
    expect(dateOf('0001-01-01T00:00:00Z')?.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(dateOf('9999-12-31T23:59:59.999Z')?.toISOString()).toBe('9999-12-31T23:59:59.999Z');
  });

  it('dated: a date read is kept; anything else is the given time, with the date as written (at most 200 characters) in unreadDate', () => {
    const now = new Date('2026-11-27T12:00:00.000Z');
    fc.assert(
      fc.property(anyInput, (v) => {
        const read = dateOf(v);
        const d = dated(v, read, now);
        checkInstant(d.publishedAt);
        if (read) expect(d).toEqual({ publishedAt: read, unreadDate: null });
        else {
          expect(d.publishedAt).toBe(now);
          const written = typeof v === 'string' ? v.trim() : String(v);
          expect(written.startsWith(d.unreadDate!)).toBe(true);
          expect(d.unreadDate!.length).toBeLessThanOrEqual(200);
          expect(d.unreadDate!.length).toBeGreaterThanOrEqual(Math.min(written.length, 200) - 1);
        }
      }),
      { numRuns: 2000 },
    );
    expect(dated(undefined, null, now)).toEqual({ publishedAt: now, unreadDate: '' });
    expect(dated({ $date: 1 }, null, now)).toEqual({ publishedAt: now, unreadDate: '' });
  });

  it('isInstantText: only RFC 3339 text of the years 0001–9999', () => {
    fc.assert(
      fc.property(fc.oneof(isoLike, fc.string()), (v) => {
        if (isInstantText(v)) {
          expect(timestamp(v), v).toBe(true);
          checkInstant(new Date(v));
        }
      }),
      { numRuns: 3000 },
    );
    expect(isInstantText(null)).toBe(false);
    expect(isInstantText('+275760-09-13T00:00:00.000Z')).toBe(false);
    expect(isInstantText('0000-01-01T00:00:00.000Z')).toBe(false);
    expect(isInstantText('2026-11-27T12:00:00.000Z')).toBe(true);
  });
});
