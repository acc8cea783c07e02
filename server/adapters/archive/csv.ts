// The records of a CSV file of an export, one at a time, through csv-parse (the service's CSV
// parser): a record is bounded as its characters arrive (`max_record_size`), so a 200 MB field is
// refused instead of grown in memory, and the event loop gets a turn now and then. A file that is
// not CSV, or a record past the bound, is a 422 naming the file (`ArchiveError`).
import type { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import { ArchiveError } from './errors.js';
import { turns } from './turns.js';

function refusal(err: unknown, file: string, maxRecord: number): ArchiveError {
  if (err instanceof ArchiveError) return err;
  if ((err as { code?: string }).code !== 'CSV_MAX_RECORD_SIZE')
    return new ArchiveError('unreadable', `${file} is not a readable CSV (${(err as Error).message.split('\n')[0]}).`);
  return new ArchiveError('too_large', `${file} holds a record larger than ${maxRecord} characters; at most ${maxRecord} are accepted for one post.`);
}

/** Each record as an object keyed by the header's column names. */
export async function* csvRecords(input: Readable, file: string, maxRecord: number): AsyncGenerator<Record<string, string | undefined>> {
  const parser = parseCsv({ columns: true, bom: true, skip_empty_lines: true, relax_column_count: true, max_record_size: maxRecord });
  input.on('error', (e) => parser.destroy(e));
  const turn = turns();
  try {
    for await (const record of input.pipe(parser)) {
      yield record as Record<string, string | undefined>;
      await turn();
    }
  } catch (err) {
    throw refusal(err, file, maxRecord);
  } finally {
    input.destroy();
    parser.destroy();
  }
}
