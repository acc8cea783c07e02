// Shaping extracted values into the contract's field types (shared by the css and llm modes):
// clipped strings, numbers read from text, absolute http(s) URLs, bounded lists.
import type { components } from '../../../generated/api.js';

export type FieldType = components['schemas']['FetchSchemaField']['type'];
export type FieldValue = string | number | boolean | string[] | null;

export const MAX_STRING = 100_000;
export const MAX_LIST = 1_000;

export const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
export const clip = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);

/** An absolute http(s) URL, or null (javascript:, data:, mailto: and the like are dropped). */
export function absoluteUrl(raw: string, base: string): string | null {
  try {
    const u = new URL(raw.trim(), base);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/**
 * The first number in a text: `$1,299.00` → 1299, `1.299,50 €` → 1299.5, `4.5 out of 5` → 4.5.
 * A separator followed by exactly three digits is a thousands separator unless it is the only
 * separator and a dot (`4.500` stays 4.5).
 */
export function parseNumber(text: string): number | null {
  const m = /-?\d[\d.,\s\u00a0\u202f']*/.exec(text);
  if (!m) return null;
  let s = m[0].replace(/[\s\u00a0\u202f']/g, '').replace(/[.,]+$/, '');
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const thousands = decimal === '.' ? ',' : '.';
    s = s.split(thousands).join('').replace(decimal, '.');
  } else if (lastComma >= 0) {
    const parts = s.split(',');
    s = parts.length === 2 && parts[1].length !== 3 ? parts.join('.') : parts.join('');
  } else if ((s.match(/\./g) ?? []).length > 1) {
    s = s.split('.').join('');
  }
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** Shapes raw matched strings (in document order) into a value of the field's type. */
export function shapeValue(type: FieldType | undefined, raw: string[], base: string): FieldValue {
  const values = raw.map((v) => clip(v, MAX_STRING)).filter((v) => v !== '');
  switch (type ?? 'string') {
    case 'number':
      return values.length ? parseNumber(values[0]) : null;
    case 'url':
      return values.length ? absoluteUrl(values[0], base) : null;
    case 'list':
      return values.slice(0, MAX_LIST);
    case 'url_list':
      return values
        .map((v) => absoluteUrl(v, base))
        .filter((v): v is string => v !== null)
        .slice(0, MAX_LIST);
    default:
      return values.length ? values[0] : null;
  }
}
