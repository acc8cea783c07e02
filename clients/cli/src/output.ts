// Printing results: JSON for machines (`--json`), tables for people. Tables carry no colours, so
// piping them stays clean.
import Table from 'cli-table3';

const PLAIN = { head: [] as string[], border: [] as string[] };

export function printJson(data: unknown) {
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
}

export const truncate = (s: string, n: number) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
};

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
};

/** Nested objects become dotted keys (`last_run.status`), so any record prints as two columns. */
function flatten(obj: Record<string, unknown>, prefix = '', out: Array<[string, string]> = []): Array<[string, string]> {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, key, out);
    else out.push([key, Array.isArray(v) ? (v.length ? v.map(cell).join(', ') : '-') : cell(v)]);
  }
  return out;
}

/** One resource as a two-column table; `omit` leaves out fields printed another way. */
export function printRecord(obj: Record<string, unknown>, omit: string[] = []) {
  const table = new Table({ style: PLAIN });
  for (const [k, v] of flatten(Object.fromEntries(Object.entries(obj).filter(([k]) => !omit.includes(k))))) table.push({ [k]: truncate(v, 100) });
  process.stdout.write(`${table.toString()}\n`);
}

export function printTable(head: string[], rows: unknown[][]) {
  const table = new Table({ head, style: PLAIN });
  for (const r of rows) table.push(r.map(cell));
  process.stdout.write(`${table.toString()}\n`);
}

/** A resource: JSON with `--json`, else a two-column table. */
export function show(json: boolean, data: Record<string, unknown>, omit: string[] = []) {
  if (json) printJson(data);
  else printRecord(data, omit);
}

/** Free text (an artifact's text, fetched Markdown) after a blank line. */
export function printText(text: string) {
  process.stdout.write(`\n${text}${text.endsWith('\n') ? '' : '\n'}`);
}

/** Progress and notices: stderr, so stdout stays the result. */
export function note(line: string) {
  process.stderr.write(`${line}\n`);
}
