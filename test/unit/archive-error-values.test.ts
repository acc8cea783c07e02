// An export that does not parse is refused with the parser's reason, but never with the values
// the parser quotes from the file (issue #30): the real messages of the parsers the importers use,
// each made from a file holding a secret, keep their positions and lose the secret.
import { JSONParser } from '@streamparser/json';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { ArchiveError, withoutFileValues } from '../../server/adapters/archive/errors.js';

const SECRET = 'door code 4417';

/** The first error the streaming JSON parser reports for `text`. */
function jsonError(text: string): string {
  const p = new JSONParser();
  let first: string | undefined;
  p.onValue = () => {};
  p.onError = (err) => {
    first ??= err.message;
  };
  try {
    p.write(text);
    p.end();
  } catch (err) {
    first ??= (err as Error).message;
  }
  if (first === undefined) throw new Error('parsed');
  return first;
}

function csvError(text: string): string {
  try {
    parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('parsed');
}

describe('withoutFileValues', () => {
  it.each([
    ['a JSON string where a colon was due', `{"a" "${SECRET}"}`],
    ['a JSON number where a comma was due', '[1 4417]'],
    ['a character the JSON tokenizer cannot read', `[1, ${SECRET}]`],
    ['a JSON string where a comma was due', `["x" "${SECRET}"]`],
    ['a CSV quote opened inside a field', `a,b\n${SECRET}"x,y\n`],
    ['a CSV closing quote followed by text', `a,b\n"x"${SECRET},y\n`],
  ])('%s: the parser quotes the file, the message does not', (_what, text) => {
    const raw = text.startsWith('a,b') ? csvError(text) : jsonError(text);
    expect(raw).toMatch(/4417|door|"d"/);
    const clean = withoutFileValues(raw);
    expect(clean).not.toMatch(/4417|door|"d"/);
    expect(new ArchiveError('unreadable', `outbox.json is not readable JSON (${raw}).`).message).not.toMatch(/4417|door|"d"/);
  });

  it('keeps positions, lines and states, and what the caller sent (format)', () => {
    expect(withoutFileValues('Unexpected "d" at chunk position "74" (absolute position "74") in state START')).toBe(
      'Unexpected "…" at chunk position "74" (absolute position "74") in state START',
    );
    expect(withoutFileValues('Unexpected STRING ("a (b) \\"c\\"") in state COLON')).toBe('Unexpected STRING in state COLON');
    expect(new ArchiveError('unknown_format', 'format must be one of x, mastodon, got "myspace".', 'format').message).toContain('"myspace"');
  });
});
