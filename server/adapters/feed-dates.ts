// Feed dates as feeds write them. RSS's `pubDate` is RFC 822 (`Mon, 24 Sep 2018 19:42:40 -0300`),
// but many feeds write the day and month names in their own language (`Seg, 24 Set 2018 19:42:40
// -0300`, `lun., 24 sept. 2018`, `Mo, 24 Sep 2018`, `lun, 24 sep 2018`); Atom and `dc:date` are
// ISO 8601. The weekday is ignored (it says nothing the date does not); the month is read from its
// name or abbreviation in English, Portuguese, Spanish, French, German, Italian and Dutch; the zone
// from an offset or a common abbreviation. Anything else is unread (null): the caller says so; so is
// a date outside the years 0001–9999, which the service cannot store or answer.

import { representable } from '../lib/instants.js';

/** Month names (accents removed, lower case), January first. */
const MONTHS: string[][] = [
  ['january', 'janeiro', 'enero', 'janvier', 'januar', 'gennaio', 'januari'],
  ['february', 'fevereiro', 'febrero', 'fevrier', 'februar', 'febbraio', 'februari'],
  ['march', 'marco', 'marzo', 'mars', 'marz', 'maart', 'mrz'],
  ['april', 'abril', 'avril', 'aprile'],
  ['may', 'maio', 'mayo', 'mai', 'maggio', 'mei'],
  ['june', 'junho', 'junio', 'juin', 'juni', 'giugno'],
  ['july', 'julho', 'julio', 'juillet', 'juli', 'luglio'],
  ['august', 'agosto', 'aout', 'augustus'],
  ['september', 'setembro', 'septiembre', 'septembre', 'settembre', 'setiembre'],
  ['october', 'outubro', 'octubre', 'octobre', 'oktober', 'ottobre'],
  ['november', 'novembro', 'noviembre', 'novembre'],
  ['december', 'dezembro', 'diciembre', 'decembre', 'dezember', 'dicembre'],
];

const plain = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\.$/, '');

/** The month (0–11) a name or abbreviation stands for: a whole name, or the start (3 letters or more) of names of one month only. */
export function monthOf(token: string): number | null {
  const t = plain(token);
  if (t.length < 3) return null;
  const exact = MONTHS.findIndex((names) => names.includes(t));
  if (exact >= 0) return exact;
  const found = MONTHS.flatMap((names, i) => (names.some((n) => n.startsWith(t)) ? [i] : []));
  return found.length === 1 ? found[0]! : null;
}

/** Zone abbreviations feeds use, as minutes east of UTC. */
const ZONES: Record<string, number> = {
  gmt: 0,
  ut: 0,
  utc: 0,
  z: 0,
  wet: 0,
  bst: 60,
  cet: 60,
  mez: 60,
  cest: 120,
  mesz: 120,
  eet: 120,
  eest: 180,
  msk: 180,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
  akst: -540,
  akdt: -480,
  hst: -600,
  brt: -180,
  art: -180,
  jst: 540,
  kst: 540,
  hkt: 480,
  sgt: 480,
  aest: 600,
  aedt: 660,
  nzst: 720,
  nzdt: 780,
};

function zoneMinutes(zone: string | undefined): number | null {
  if (!zone) return 0;
  const m = /^([+-])(\d\d):?(\d\d)$/.exec(zone);
  if (m) return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
  return ZONES[zone.toLowerCase()] ?? null;
}

// [weekday,] day month year [hh:mm[:ss]] [zone]; a month abbreviation may end with a dot.
const RFC822 =
  /^\s*(?:[^\d\s,]+\.?,?\s+)?(\d{1,2})\.?\s+([^\d\s,.]+)\.?,?\s+(\d{2}|\d{4})(?:,?\s+(\d{1,2}):(\d\d)(?::(\d\d))?)?(?:\s+([+-]\d\d:?\d\d|[a-z]{1,5}))?\s*$/i;
const ISO = /^\s*\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?\s*(?:Z|[+-]\d\d:?\d\d)?)?\s*$/i;

/** A UTC time of any year (Date.UTC reads the years 0–99 as 1900–1999: `24 Sep 0018` is not 1918). */
function utc(year: number, month: number, day: number, h: number, min: number, sec: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(h, min, sec, 0);
  return d;
}

/** A feed's date, or null when it cannot be read (never a guess). */
export function feedDate(raw: string): Date | null {
  const s = raw.trim();
  if (!s) return null;
  const r = RFC822.exec(s);
  if (r) {
    const month = monthOf(r[2]!);
    const offset = zoneMinutes(r[7]);
    if (month === null || offset === null) return null;
    let year = Number(r[3]);
    if (r[3]!.length === 2) year += year < 50 ? 2000 : 1900;
    const [day, h, min, sec] = [Number(r[1]), Number(r[4] ?? 0), Number(r[5] ?? 0), Number(r[6] ?? 0)];
    if (day < 1 || day > 31 || h > 23 || min > 59 || sec > 60) return null;
    const at = utc(year, month, day, h, min, sec);
    const d = representable(new Date(at.getTime() - offset * 60_000));
    // 31 Feb is not a date: the day must still be the day once the month is known.
    return d && at.getUTCDate() === day ? d : null;
  }
  if (ISO.test(s)) {
    // `2018-09-24 19:42:40` (no zone) is read as UTC, as feeds without a zone mean in practice.
    const iso = s.replace(' ', 'T');
    return representable(new Date(/T\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(iso) ? `${iso}Z` : iso));
  }
  return null;
}
