// What can be wrong with an uploaded export. Every kind is the uploader's to fix, so each becomes
// 422 `validation_failed` (or 413 for `too_large`), naming the field and what was found.
export type ArchiveErrorKind =
  /** nothing was sent */
  | 'empty'
  /** a ZIP, tar or gzip that does not read to its end */
  | 'corrupt'
  /** past a size, entry-count or ratio limit: a possible decompression bomb */
  | 'too_large'
  /** ZIP entries sharing bytes (one local header or one body under several names) */
  | 'overlap'
  /** a readable container without the file the format needs */
  | 'missing_file'
  /** a file that is not any export we know */
  | 'unknown_format'
  /** the export's data file does not parse */
  | 'unreadable'
  /** the format asked for is not the one found */
  | 'format_mismatch';

/**
 * A message without the values of the file it was made from. The parsers quote what they choke
 * on: @streamparser/json a character (`Unexpected "d" at chunk position "74"`) or a whole value
 * (`Unexpected STRING ("the door code is 4417") in state COLON`, a number unquoted), csv-parse a
 * field (`value is "…"`), a character (`got "x"`). An error must never echo a file's content: the
 * uploader may be an agent that was pointed at a file on someone's machine (`cpa mcp`'s
 * `import_archive_from_path`), and the answer goes to the agent, its logs and its model. Positions,
 * lines and states stay; each quoted value becomes `…`.
 */
export function withoutFileValues(message: string): string {
  return (
    message
      // @streamparser/json's token parser: `Unexpected [partial ]TYPE (<JSON value>) in state X`.
      .replace(/(Unexpected (?:partial )?[A-Z_]+) \((?:[^()"]|"(?:[^"\\]|\\.)*")*\)/g, '$1')
      // Anything quoted, but a bare position (`"74"`).
      .replace(/"(?:[^"\\]|\\.)*"/g, (q) => (/^"\d+"$/.test(q) ? q : '"…"'))
  );
}

/** Longest message kept: the answer's `message` holds 2,000 characters, the field's prefix included. */
const MAX_MESSAGE = 1800;

/** `s` cut to `max` characters with an ellipsis, never between the two halves of a character. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

export class ArchiveError extends Error {
  constructor(
    readonly kind: ArchiveErrorKind,
    message: string,
    /** The request field at fault. */
    readonly field = 'body',
  ) {
    // Messages quote entry names, which a hostile archive makes as long as it likes; the values a
    // parser quotes from the file are left out (the field `format` is the caller's, not the file's).
    super(clip(field === 'format' ? message : withoutFileValues(message), MAX_MESSAGE));
    this.name = 'ArchiveError';
  }
}
