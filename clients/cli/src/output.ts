// Printing results, after GitHub's `gh`:
// - on a terminal, tables (cli-table3, no colours) with long texts shortened;
// - when stdout is not a terminal (a pipe, a file), tab-separated lines: no header, no borders,
//   no colours, nothing shortened, one record per line, so `cut`, `awk` and `while read` work;
//   CPA_FORCE_TTY=1 prints the tables anyway (gh's GH_FORCE_TTY);
// - with `--json`, the result as JSON; `--json FIELD,FIELD` keeps only those fields (of the
//   resource, or of each item of a list).
import Table from 'cli-table3';
import { CliError, EXIT } from './errors.js';
import { io } from './io.js';

/** Whether stdout is a terminal (or CPA_FORCE_TTY says to print as if it were). */
export function stdoutIsTerminal(): boolean {
  const forced = io.env.CPA_FORCE_TTY;
  if (forced !== undefined && forced !== '') return !/^(0|false|no)$/i.test(forced);
  return Boolean(io.stdout.isTTY);
}

const PLAIN = { head: [] as string[], border: [] as string[] };

/** The fields `--json FIELD,FIELD` asked for; null prints everything. Set once per command by `action`. */
let jsonFields: string[] | null = null;

export function setJsonFields(fields: string[] | null) {
  jsonFields = fields;
}

/**
 * The value of `--json`: true (the flag alone) or '' (the flag before a positional argument,
 * see `separateJsonFields`) keep every field; "a,b" keeps those.
 */
export function parseJsonFields(value: unknown): string[] | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  const fields = value.split(',').map((f) => f.trim());
  if (fields.some((f) => !FIELD.test(f)))
    throw new CliError(`--json takes field names separated by commas (e.g. --json id,state), got ${JSON.stringify(value)}.`, EXIT.usage);
  return [...new Set(fields)];
}

/** A field name of the API: lower case words joined by underscores (no digit: ids always hold some). */
const FIELD = /^[a-z][a-z_]*$/;

/**
 * `--json` takes an optional value, so `cpa --json pipelines get ID` or `cpa runs get --json ID`
 * would read the next word as a field list. Before parsing, `--json WORD` becomes `--json=WORD`
 * when WORD is a field list (names of lower case letters and underscores, not a command name),
 * and `--json=` (every field) otherwise, WORD staying an argument.
 */
export function separateJsonFields(args: string[], commandNames: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (a !== '--json') {
      out.push(a);
      continue;
    }
    const next = args[i + 1];
    if (next === undefined || next.startsWith('-')) out.push(a);
    else if (!commandNames.has(next) && next.split(',').every((f) => FIELD.test(f.trim()))) {
      out.push(`--json=${next}`);
      i++;
    } else out.push('--json=');
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Keeps `fields` of a resource, or of each item of a list (an array, or a page `{data: [...]}`,
 * which becomes the array of its items, as `gh … --json` prints lists). A field the result does
 * not have is a usage error naming the ones it has.
 */
export function selectFields(data: unknown, fields: string[]): unknown {
  const items = Array.isArray(data) ? data : isRecord(data) && Array.isArray(data.data) ? data.data : null;
  const records = (items ?? [data]).filter(isRecord);
  const available = [...new Set(records.flatMap((r) => Object.keys(r)))];
  const unknown = records.length ? fields.filter((f) => !available.includes(f)) : [];
  if (unknown.length) {
    throw new CliError(
      `Unknown JSON field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => JSON.stringify(f)).join(', ')}. Available fields:\n  ${available.sort().join('\n  ')}`,
      EXIT.usage,
      '--json alone prints every field.',
    );
  }
  const pick = (r: unknown) => (isRecord(r) ? Object.fromEntries(fields.map((f) => [f, r[f] ?? null])) : r);
  return items ? items.map(pick) : pick(data);
}

export function printJson(data: unknown) {
  const out = jsonFields ? selectFields(data, jsonFields) : data;
  io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

/** One JSON value on one line (a stream's events, NDJSON), with the `--json` fields. */
export function printJsonLine(data: unknown) {
  io.stdout.write(`${JSON.stringify(jsonFields ? selectFields(data, jsonFields) : data)}\n`);
}

/** Shortens a text for a terminal's table; when stdout is not a terminal only flattens whitespace. */
export const truncate = (s: string, n: number) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > n && stdoutIsTerminal() ? `${flat.slice(0, n - 1)}…` : flat;
};

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v); // an object or an array (a cell holds a value of a JSON answer)
};

/** A cell of a tab-separated line: tabs and line breaks would split it, so they become spaces. */
const tsvCell = (s: string) => s.replace(/[\t\r\n]+/g, ' ');

/** Tab-separated lines, one a row: what a table prints when stdout is not a terminal. */
export function tsv(rows: string[][]): string {
  return rows.map((r) => `${r.map(tsvCell).join('\t')}\n`).join('');
}

/** Nested objects become dotted keys (`last_run.status`), so any record prints as two columns. */
function flatten(obj: Record<string, unknown>, prefix = '', out: Array<[string, string]> = []): Array<[string, string]> {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, key, out);
    else out.push([key, Array.isArray(v) ? (v.length ? v.map(cell).join(', ') : '-') : cell(v)]);
  }
  return out;
}

/** One resource as a two-column table (`key<TAB>value` lines when piped); `omit` leaves out fields printed another way. */
export function printRecord(obj: Record<string, unknown>, omit: string[] = []) {
  const pairs = flatten(Object.fromEntries(Object.entries(obj).filter(([k]) => !omit.includes(k))));
  if (!stdoutIsTerminal()) return void io.stdout.write(tsv(pairs));
  const table = new Table({ style: PLAIN });
  for (const [k, v] of pairs) table.push({ [k]: truncate(v, 100) });
  io.stdout.write(`${table.toString()}\n`);
}

/** Rows under a header on a terminal; tab-separated lines without the header when piped. */
export function printTable(head: string[], rows: unknown[][]) {
  const cells = rows.map((r) => r.map(cell));
  if (!stdoutIsTerminal()) return void io.stdout.write(tsv(cells));
  const table = new Table({ head, style: PLAIN });
  for (const r of cells) table.push(r);
  io.stdout.write(`${table.toString()}\n`);
}

/** A resource: JSON with `--json`, else a two-column table. */
export function show(json: boolean, data: Record<string, unknown>, omit: string[] = []) {
  if (json) printJson(data);
  else printRecord(data, omit);
}

/** Free text (an artifact's text, fetched Markdown) after a blank line. */
export function printText(text: string) {
  io.stdout.write(`\n${text}${text.endsWith('\n') ? '' : '\n'}`);
}

/** Progress and notices: stderr, so stdout stays the result. */
export function note(line: string) {
  io.stderr.write(`${line}\n`);
}
