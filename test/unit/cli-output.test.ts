// The output conventions of `cpa` (after GitHub's gh): tables on a terminal, tab-separated lines
// when piped, `--json FIELD,FIELD` to keep fields.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CliError } from '../../clients/cli/src/errors.js';
import { parseJsonFields, printJson, printRecord, printTable, selectFields, separateJsonFields, setJsonFields, tsv } from '../../clients/cli/src/output.js';

const TEXT = 'Ship it 🚀👩🏽‍💻 — 発表しました\tcolumn\nsecond line مرحبا e\u0301 #release @ada@example.social https://example.com/a?b=c';

describe('cpa output', () => {
  let out = '';
  beforeEach(() => {
    out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    setJsonFields(null);
  });

  it('prints tab-separated lines when stdout is not a terminal: no header, no border, nothing shortened, one row a line', () => {
    vi.stubEnv('CPA_FORCE_TTY', '0');
    const long = TEXT.repeat(5);
    printTable(
      ['id', 'text', 'likes'],
      [
        ['post_1', long, 3],
        ['post_2', null, 0],
      ],
    );
    const lines = out.split('\n');
    expect(lines).toEqual([`post_1\t${long.replace(/[\t\n]+/g, ' ')}\t3`, 'post_2\t-\t0', '']);
    expect(out).not.toMatch(/[│─┌]|\bid\b.*\btext\b/);

    out = '';
    printRecord({ id: 'pl_1', last_run: { status: 'succeeded' }, tags: ['a', 'b'], text: long });
    expect(out.split('\n')).toEqual(['id\tpl_1', 'last_run.status\tsucceeded', 'tags\ta, b', `text\t${long.replace(/[\t\n]+/g, ' ')}`, '']);
  });

  it('prints tables with a header on a terminal (CPA_FORCE_TTY=1 stands for one) and shortens long texts there', () => {
    vi.stubEnv('CPA_FORCE_TTY', '1');
    printTable(['id', 'text'], [['post_1', 'short']]);
    expect(out).toMatch(/│ id +│ text +│/);
    expect(out).toMatch(/│ post_1 +│ short +│/);
    out = '';
    printRecord({ id: 'pl_1', text: 'x'.repeat(300) });
    expect(out).toMatch(/│ id +│ pl_1 +│/);
    expect(out).toContain(`${'x'.repeat(99)}…`);
    expect(out).not.toContain('x'.repeat(100));
  });

  it('keeps a row on one line whatever its cells hold', () => {
    expect(tsv([['a\tb', 'c\r\nd']])).toBe('a b\tc d\n');
  });

  it('keeps the --json fields of a resource, of each item of a list, and of each item of a page', () => {
    const artifact = { id: 'art_1', state: 'ready', text: TEXT, schedule: null };
    expect(selectFields(artifact, ['state', 'id'])).toEqual({ state: 'ready', id: 'art_1' });
    expect(selectFields(artifact, ['schedule'])).toEqual({ schedule: null });
    expect(selectFields([artifact, { ...artifact, id: 'art_2' }], ['id'])).toEqual([{ id: 'art_1' }, { id: 'art_2' }]);
    expect(selectFields({ data: [artifact], next_cursor: 'c' }, ['id', 'text'])).toEqual([{ id: 'art_1', text: TEXT }]);
    expect(selectFields({ data: [] }, ['id'])).toEqual([]);

    setJsonFields(['id']);
    printJson({ data: [artifact] });
    expect(JSON.parse(out)).toEqual([{ id: 'art_1' }]);
  });

  it('refuses a field the result does not have, naming the ones it has', () => {
    let err: unknown;
    try {
      selectFields({ id: 'art_1', state: 'ready' }, ['id', 'status']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(2);
    expect((err as CliError).message).toMatch(/Unknown JSON field "status"\. Available fields:\n {2}id\n {2}state/);
  });

  it('reads --json: alone every field, with a list those fields, anything else a usage error', () => {
    expect(parseJsonFields(true)).toBeNull();
    expect(parseJsonFields('')).toBeNull();
    expect(parseJsonFields('id, state,id')).toEqual(['id', 'state']);
    expect(() => parseJsonFields('id;rm -rf')).toThrow(CliError);
  });

  it('tells a field list after --json from a command or an id that follows it', () => {
    const commands = new Set(['pipelines', 'get', 'runs']);
    expect(separateJsonFields(['runs', 'get', 'run_1', '--json', 'id,status'], commands)).toEqual(['runs', 'get', 'run_1', '--json=id,status']);
    expect(separateJsonFields(['runs', 'get', '--json', 'status'], commands)).toEqual(['runs', 'get', '--json=status']);
    expect(separateJsonFields(['--json', 'pipelines', 'get', 'pl_0a1b2c3d4e5f6a7b'], commands)).toEqual(['--json=', 'pipelines', 'get', 'pl_0a1b2c3d4e5f6a7b']);
    expect(separateJsonFields(['runs', 'get', '--json', 'run_0a1b2c3d4e5f6a7b'], commands)).toEqual(['runs', 'get', '--json=', 'run_0a1b2c3d4e5f6a7b']);
    expect(separateJsonFields(['runs', 'get', 'run_1', '--json'], commands)).toEqual(['runs', 'get', 'run_1', '--json']);
    expect(separateJsonFields(['runs', 'get', '--json', '--token', 't'], commands)).toEqual(['runs', 'get', '--json', '--token', 't']);
    expect(separateJsonFields(['fetch', '--', '--json', 'id'], commands)).toEqual(['fetch', '--', '--json', 'id']);
  });
});
