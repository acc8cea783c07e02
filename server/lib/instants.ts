// Instants as the service can keep and answer them: the years 0001 to 9999 (UTC). The contract's
// `date-time` is RFC 3339, whose year has four digits; PostgreSQL's `timestamp` has no year 0 and
// reads no `+010000-…`; JavaScript's Date reaches ±275760 and writes those years as `+275760-…`
// and `-000001-…`, which no answer may carry (issue 30: one such date in an export made every list
// of its workspace answer 500). Every date read from outside goes through `representable` where it
// is parsed, and every stored one through `instantText` where it is answered.

/** 0001-01-01T00:00:00.000Z */
export const MIN_INSTANT_MS = -62_135_596_800_000;
/** 9999-12-31T23:59:59.999Z */
export const MAX_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Whether a time in epoch milliseconds is one the service can store and answer. */
export function isRepresentable(ms: number): boolean {
  return Number.isFinite(ms) && ms >= MIN_INSTANT_MS && ms <= MAX_INSTANT_MS;
}

/** The date when it is a valid instant of the years 0001–9999, else null. */
export function representable(d: Date | null | undefined): Date | null {
  return d && isRepresentable(d.getTime()) ? d : null;
}

/** The RFC 3339 text of a stored instant (`2026-11-22T09:30:00.000Z`), or null when it is outside the years 0001–9999 or invalid. */
export function instantText(d: Date | null | undefined): string | null {
  return representable(d)?.toISOString() ?? null;
}

const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:Z|[+-](\d\d):(\d\d))$/i;

/** The days of a month (1–12) of a year of the proleptic Gregorian calendar. */
function daysIn(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
}

/**
 * Whether a text is an instant as the contract answers one: RFC 3339 (a real day of a real month,
 * hours to 23, no leap second), of the years 0001–9999 once in UTC. JavaScript's Date would roll
 * `2021-02-31` over to March; this does not.
 */
export function isInstantText(v: unknown): v is string {
  const m = typeof v === 'string' ? RFC3339.exec(v) : null;
  if (!m) return false;
  const [year, month, day, h, min, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || h > 23 || min > 59 || sec > 59) return false;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
  return representable(new Date(v as string)) !== null;
}
