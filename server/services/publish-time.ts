// When a publish should happen: `at` (RFC 3339 with an offset), or `local_time` in an IANA
// `time_zone` (with `utc_offset` for a local time that occurs twice). Time-zone rules come from
// Temporal (over Node's ICU time-zone database), which knows each zone's gaps and overlaps: the
// built-in one where the runtime ships it (Node 26), else temporal-polyfill (Node 24 has Temporal
// only behind a flag), a spec-complete implementation on the same Intl data.
import { Temporal as TemporalPolyfill } from 'temporal-polyfill';
import { invalid } from '../errors.js';
import { representable } from '../lib/instants.js';

const Temporal: typeof TemporalPolyfill = (globalThis as { Temporal?: typeof TemporalPolyfill }).Temporal ?? TemporalPolyfill;
type ZonedDateTime = InstanceType<typeof Temporal.ZonedDateTime>;
type PlainDateTime = InstanceType<typeof Temporal.PlainDateTime>;

export interface PublishTimeInput {
  at?: string;
  local_time?: string;
  time_zone?: string;
  utc_offset?: string;
}

export interface PublishTime {
  at: Date;
  /** As given, when given as a local time: shown back on the artifact. */
  localTime: string | null;
  timeZone: string | null;
}

const RFC3339 = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d{1,9})?([Zz]|[+-]\d\d:\d\d)$/;
const LOCAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/;

function instantOf(at: string): Date {
  if (!RFC3339.test(at))
    throw invalid(
      `body.at ${JSON.stringify(at)} is not an RFC 3339 time with an offset, e.g. 2026-12-01T09:30:00+01:00 or 2026-12-01T08:30:00Z (for a wall-clock time, send local_time with time_zone).`,
    );
  try {
    return new Date(Temporal.Instant.from(at).epochMilliseconds);
  } catch {
    throw invalid(`body.at ${JSON.stringify(at)} is not a valid time (a day or an hour out of range).`);
  }
}

function zonedOf(local: string, zone: string, offset: string | undefined): { at: Date; zone: string } {
  if (!LOCAL.test(local))
    throw invalid(`body.local_time ${JSON.stringify(local)} is not a local time of the form YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS, without an offset.`);
  let wall: PlainDateTime;
  try {
    wall = Temporal.PlainDateTime.from(local, { overflow: 'reject' });
  } catch {
    throw invalid(`body.local_time ${JSON.stringify(local)} is not a valid date and time (a day or an hour out of range).`);
  }
  // An IANA name, not an offset: a fixed offset belongs in `at`.
  if (!/^[A-Za-z]/.test(zone))
    throw invalid(
      `body.time_zone ${JSON.stringify(zone)} is not an IANA time zone name (e.g. Europe/Paris); for a fixed offset, send at with the offset instead.`,
    );
  let earlier: ZonedDateTime;
  let later: ZonedDateTime;
  try {
    earlier = wall.toZonedDateTime(zone, { disambiguation: 'earlier' });
    later = wall.toZonedDateTime(zone, { disambiguation: 'later' });
  } catch {
    throw invalid(`body.time_zone ${JSON.stringify(zone)} is not a known IANA time zone (e.g. Europe/Paris, America/New_York, Asia/Kolkata).`);
  }
  // In a gap (clocks going forward) the wall time does not exist: Temporal shifts it.
  if (!earlier.toPlainDateTime().equals(wall)) {
    throw invalid(
      `body.local_time ${local} does not exist in ${earlier.timeZoneId}: the clocks skip that hour (daylight saving time starts). Pick a time outside the gap, e.g. ${later.toPlainDateTime().toString()}.`,
    );
  }
  const options = earlier.offset === later.offset ? [earlier] : [earlier, later];
  if (offset !== undefined) {
    const chosen = options.find((z) => z.offset === offset);
    if (!chosen)
      throw invalid(`body.utc_offset ${offset} is not an offset ${earlier.timeZoneId} has at ${local}; it has ${options.map((z) => z.offset).join(' or ')}.`);
    return { at: new Date(chosen.epochMilliseconds), zone: chosen.timeZoneId };
  }
  if (options.length > 1) {
    throw invalid(
      `body.local_time ${local} occurs twice in ${earlier.timeZoneId} (the clocks go back): send utc_offset ${earlier.offset} for the first, ${later.offset} for the second.`,
    );
  }
  return { at: new Date(earlier.epochMilliseconds), zone: earlier.timeZoneId };
}

/** The requested publish time, or null to publish now. Every refusal is 422 naming its field. */
export function publishTime(input: PublishTimeInput, now: Date): PublishTime | null {
  const { at, local_time: local, time_zone: zone, utc_offset: offset } = input;
  if (at !== undefined && (local !== undefined || zone !== undefined))
    throw invalid('body.at cannot be sent with local_time or time_zone: send one way of giving the time.');
  if (offset !== undefined && local === undefined)
    throw invalid('body.utc_offset only goes with local_time and time_zone (it picks one of the two instants of an ambiguous local time).');
  if (local !== undefined && zone === undefined) throw invalid('body.time_zone is required with local_time (an IANA name such as Europe/Paris).');
  if (zone !== undefined && local === undefined) throw invalid('body.local_time is required with time_zone.');
  let result: PublishTime;
  let field: string;
  if (at !== undefined) {
    result = { at: instantOf(at), localTime: null, timeZone: null };
    field = 'at';
  } else if (local !== undefined && zone !== undefined) {
    const z = zonedOf(local, zone, offset);
    result = { at: z.at, localTime: local, timeZone: z.zone };
    field = 'local_time';
  } else return null;
  // `9999-12-31T23:59:59-01:00` is year 10000 in UTC: no database stores it, no answer could carry it.
  if (!representable(result.at)) throw invalid(`body.${field} is after the year 9999 in UTC; send a time of the years 0001–9999.`);
  if (result.at.getTime() < now.getTime()) {
    throw invalid(`body.${field} is in the past (${result.at.toISOString()}, now is ${now.toISOString()}); to publish now, send no time.`);
  }
  return result;
}
