// When a publish happens: RFC 3339 instants, local times in IANA zones, and the refusals (past,
// DST gap, DST overlap without an offset, unknown zone), each naming its field.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.js';
import { publishTime, type PublishTimeInput } from '../../server/services/publish-time.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');

function refusal(input: PublishTimeInput, now = NOW): AppError {
  try {
    publishTime(input, now);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('publishTime', () => {
  it('is null without a time (publish now)', () => {
    expect(publishTime({}, NOW)).toBeNull();
  });

  it('reads RFC 3339 with any offset, Z, fractions, and a half-hour offset', () => {
    expect(publishTime({ at: '2026-12-01T09:30:00+01:00' }, NOW)).toEqual({ at: new Date('2026-12-01T08:30:00.000Z'), localTime: null, timeZone: null });
    expect(publishTime({ at: '2026-12-01T08:30:00Z' }, NOW)?.at.toISOString()).toBe('2026-12-01T08:30:00.000Z');
    expect(publishTime({ at: '2026-12-01t08:30:00.250z' }, NOW)?.at.toISOString()).toBe('2026-12-01T08:30:00.250Z');
    expect(publishTime({ at: '2026-12-01T14:00:00+05:30' }, NOW)?.at.toISOString()).toBe('2026-12-01T08:30:00.000Z');
    expect(publishTime({ at: '2026-12-01T00:00:00-09:30' }, NOW)?.at.toISOString()).toBe('2026-12-01T09:30:00.000Z');
  });

  it('refuses at without an offset, out-of-range fields, and mixed forms, naming the field', () => {
    expect(refusal({ at: '2026-12-01T09:30:00' }).message).toMatch(/^body\.at .*offset/);
    expect(refusal({ at: '2026-02-30T09:30:00Z' }).message).toMatch(/^body\.at .*not a valid time/);
    expect(refusal({ at: 'tomorrow' }).message).toMatch(/^body\.at /);
    expect(refusal({ at: '2026-12-01T09:30:00Z', time_zone: 'Europe/Paris' }).message).toMatch(/^body\.at cannot be sent with/);
    expect(refusal({ local_time: '2026-12-01T09:30' }).message).toMatch(/^body\.time_zone is required/);
    expect(refusal({ time_zone: 'Europe/Paris' }).message).toMatch(/^body\.local_time is required/);
    expect(refusal({ at: '2026-12-01T09:30:00Z', utc_offset: '+01:00' }).message).toMatch(/^body\.utc_offset /);
    expect(refusal({ local_time: '2026-12-01T09:30+01:00', time_zone: 'Europe/Paris' }).message).toMatch(/^body\.local_time /);
    expect(refusal({ local_time: '2026-13-01T09:30', time_zone: 'Europe/Paris' }).message).toMatch(/^body\.local_time .*not a valid date/);
    expect(refusal({ at: '2026-12-01T09:30' }).status).toBe(422);
  });

  it('refuses a time past the year 9999 in UTC (issue 30: no database stores it, no answer carries it), in either form', () => {
    expect(refusal({ at: '9999-12-31T23:59:59-01:00' }).message).toMatch(/^body\.at .*year 9999/);
    expect(refusal({ local_time: '9999-12-31T23:30', time_zone: 'America/New_York' }).message).toMatch(/^body\.local_time .*year 9999/);
    expect(publishTime({ at: '9999-12-31T23:59:59Z' }, NOW)?.at.toISOString()).toBe('9999-12-31T23:59:59.000Z');
  });

  it('refuses a time in the past, in either form', () => {
    const past = refusal({ at: '2026-06-01T11:59:59Z' });
    expect([past.status, past.code]).toEqual([422, 'validation_failed']);
    expect(past.message).toMatch(/^body\.at is in the past/);
    expect(refusal({ local_time: '2026-06-01T13:59', time_zone: 'Europe/Paris' }).message).toMatch(/^body\.local_time is in the past/);
    // The same wall time further east is already gone, further west still to come.
    expect(refusal({ local_time: '2026-06-01T14:30', time_zone: 'Europe/Moscow' }).message).toMatch(/in the past/);
    expect(publishTime({ local_time: '2026-06-01T14:30', time_zone: 'Europe/Paris' }, NOW)?.at.toISOString()).toBe('2026-06-01T12:30:00.000Z');
  });

  it('converts a local time with the zone offset in force then (summer and winter)', () => {
    expect(publishTime({ local_time: '2026-07-01T09:30', time_zone: 'Europe/Paris' }, NOW)).toEqual({
      at: new Date('2026-07-01T07:30:00.000Z'),
      localTime: '2026-07-01T09:30',
      timeZone: 'Europe/Paris',
    });
    expect(publishTime({ local_time: '2026-12-01T09:30', time_zone: 'Europe/Paris' }, NOW)?.at.toISOString()).toBe('2026-12-01T08:30:00.000Z');
    expect(publishTime({ local_time: '2026-12-01T09:30:15', time_zone: 'America/New_York' }, NOW)?.at.toISOString()).toBe('2026-12-01T14:30:15.000Z');
    expect(publishTime({ local_time: '2026-12-01T09:30', time_zone: 'Asia/Kathmandu' }, NOW)?.at.toISOString()).toBe('2026-12-01T03:45:00.000Z');
    // Southern hemisphere: summer time in December.
    expect(publishTime({ local_time: '2026-12-01T09:30', time_zone: 'Australia/Sydney' }, NOW)?.at.toISOString()).toBe('2026-11-30T22:30:00.000Z');
  });

  it('refuses a local time in the spring-forward gap, naming local_time and a time that exists', () => {
    const gap = refusal({ local_time: '2026-10-04T02:30', time_zone: 'Australia/Sydney' });
    expect(gap.message).toMatch(/^body\.local_time 2026-10-04T02:30 does not exist in Australia\/Sydney/);
    expect(refusal({ local_time: '2027-03-28T02:30', time_zone: 'Europe/Paris' }).message).toMatch(/does not exist in Europe\/Paris.*2027-03-28T03:30/);
    expect(refusal({ local_time: '2027-03-14T02:00', time_zone: 'America/New_York' }).message).toMatch(/does not exist/);
  });

  it('refuses a local time in the fall-back overlap unless utc_offset says which; a wrong offset names utc_offset', () => {
    const twice = refusal({ local_time: '2026-10-25T02:30', time_zone: 'Europe/Paris' });
    expect(twice.message).toMatch(/^body\.local_time 2026-10-25T02:30 occurs twice in Europe\/Paris.*\+02:00.*\+01:00/);
    expect(publishTime({ local_time: '2026-10-25T02:30', time_zone: 'Europe/Paris', utc_offset: '+02:00' }, NOW)?.at.toISOString()).toBe(
      '2026-10-25T00:30:00.000Z',
    );
    expect(publishTime({ local_time: '2026-10-25T02:30', time_zone: 'Europe/Paris', utc_offset: '+01:00' }, NOW)?.at.toISOString()).toBe(
      '2026-10-25T01:30:00.000Z',
    );
    expect(refusal({ local_time: '2026-10-25T02:30', time_zone: 'Europe/Paris', utc_offset: '+03:00' }).message).toMatch(
      /^body\.utc_offset \+03:00 is not an offset/,
    );
    expect(refusal({ local_time: '2026-11-01T01:30', time_zone: 'America/New_York' }).message).toMatch(/occurs twice/);
    // An offset for an unambiguous time must still be the zone's.
    expect(publishTime({ local_time: '2026-12-01T09:30', time_zone: 'Europe/Paris', utc_offset: '+01:00' }, NOW)?.at.toISOString()).toBe(
      '2026-12-01T08:30:00.000Z',
    );
    expect(refusal({ local_time: '2026-12-01T09:30', time_zone: 'Europe/Paris', utc_offset: '+02:00' }).message).toMatch(/^body\.utc_offset/);
  });

  it('refuses an unknown zone and an offset given as a zone, naming time_zone', () => {
    expect(refusal({ local_time: '2026-12-01T09:30', time_zone: 'Mars/Olympus_Mons' }).message).toMatch(
      /^body\.time_zone "Mars\/Olympus_Mons" is not a known IANA time zone/,
    );
    expect(refusal({ local_time: '2026-12-01T09:30', time_zone: '+02:00' }).message).toMatch(/^body\.time_zone .*not an IANA time zone name/);
    expect(publishTime({ local_time: '2026-12-01T09:30', time_zone: 'UTC' }, NOW)?.at.toISOString()).toBe('2026-12-01T09:30:00.000Z');
    // Case is not significant; the canonical name is kept.
    expect(publishTime({ local_time: '2026-12-01T09:30', time_zone: 'europe/paris' }, NOW)?.timeZone).toBe('Europe/Paris');
  });
});
