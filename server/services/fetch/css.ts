// The `css` mode: an extraction schema's selectors run over the page with cheerio (no scripts).
import type { components } from '../../../generated/api.js';
import type { SchemaDefinition } from './builtin-schemas.js';
import type { ParsedPage } from './page.js';
import { collapse, shapeValue, type FieldValue } from './values.js';

type Field = components['schemas']['FetchSchemaField'];
const URL_ATTRIBUTES = ['href', 'src', 'content'];
const isUrlType = (t: Field['type'] | undefined) => t === 'url' || t === 'url_list';

/** The non-empty values one selector yields, in document order. */
function valuesOf(page: ParsedPage, sel: Field['selectors'][number], type: Field['type'] | undefined): string[] {
  const { $ } = page;
  const out: string[] = [];
  $(sel.selector).each((_, el) => {
    const node = $(el);
    let v: string | undefined;
    if (sel.attribute) v = node.attr(sel.attribute);
    else if (isUrlType(type)) v = URL_ATTRIBUTES.map((a) => node.attr(a)).find((x) => x);
    else v = node.text();
    const value = v ? collapse(v) : '';
    if (value) out.push(value);
  });
  return out;
}

export function extractFields(page: ParsedPage, schema: SchemaDefinition): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = {};
  for (const [name, field] of Object.entries(schema.fields)) {
    // The first selector that yields anything wins; the rest are fallbacks.
    let raw: string[] = [];
    for (const sel of field.selectors) {
      raw = valuesOf(page, sel, field.type);
      if (raw.length) break;
    }
    fields[name] = shapeValue(field.type, raw, page.base);
  }
  return fields;
}
