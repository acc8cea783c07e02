// The elements of a large JSON array, one at a time, so that a file of hundreds of MB never
// becomes one object graph. @streamparser/json measured ~9 MB/s here against stream-json's
// 0.6–7 MB/s on the same outbox; at Mastodon's ~2.5 KB per activity that is what makes ≥ 1,000
// posts/s possible. X's `tweets.js` is `window.YTD.tweets.part0 = [ … ]`: the assignment before
// the array is dropped on the way in.
//
// Memory follows a bound, not the input: the parser is fed at most `SLICE` bytes at a time, and
// the bytes fed since the last element came out are counted; past `maxValueBytes` (one post of
// 200 MB, or MBs of padding between two posts) the file is refused, as the bytes arrive. The
// whole file may be bounded too (`maxBytes`: the side files, kept in memory once parsed).
import type { Readable } from 'node:stream';
import { JSONParser } from '@streamparser/json';
import { ArchiveError } from './errors.js';
import { turns } from './turns.js';

/** The parser is written this many bytes at a time: the error of the per-element count, and the work between two checks. */
const SLICE = 64 * 1024;

export interface ArrayOptions {
  /** The array's path (`orderedItems`), or null: the top-level value is the array. */
  path: string | null;
  /** The file starts with `name = ` before the array (X's `window.YTD.…`). */
  assignment: boolean;
  /** The file's name, for the 422. */
  what: string;
  /** Most bytes one element (and what comes before it) may take. */
  maxValueBytes: number;
  /** Most bytes the whole file may hold (side files); unbounded when absent. */
  maxBytes?: number;
  /**
   * Further JSONPaths whose values are yielded too (Pixelfed's `[{"data": [status, …]}, …]`),
   * innermost first. A value yielded is taken out of its parent, so that a wrapper yielded
   * after its elements holds none of them.
   */
  alsoPaths?: string[];
}

/** Yields each element of the array at `opts.path`; a malformed or oversized file is a 422 (`ArchiveError`). */
export async function* jsonArrayElements(input: Readable, opts: ArrayOptions): AsyncGenerator {
  const parser = new JSONParser({ paths: [opts.path ? `$.${opts.path}.*` : '$.*', ...(opts.alsoPaths ?? [])], keepStack: false });
  const queue: unknown[] = [];
  const detach = Boolean(opts.alsoPaths?.length);
  parser.onValue = ({ value, key, parent }) => {
    queue.push(value);
    if (detach && parent && key !== undefined) (parent as Record<string | number, unknown>)[key] = null;
  };
  const unreadable = (err: unknown) =>
    err instanceof ArchiveError
      ? err
      : new ArchiveError('unreadable', `${opts.what} is not readable JSON (${String((err as Error)?.message ?? err).split('\n')[0]}).`);
  let skipping = opts.assignment;
  let sawArray = false;
  let pending = 0;
  let total = 0;
  const turn = turns();
  try {
    read: for await (const c of input) {
      const whole = c as Buffer;
      total += whole.length;
      if (opts.maxBytes !== undefined && total > opts.maxBytes)
        throw new ArchiveError('too_large', `${opts.what} is larger than ${opts.maxBytes} bytes; at most ${opts.maxBytes} are accepted for this file.`);
      for (let at = 0; at < whole.length; at += SLICE) {
        let chunk = whole.subarray(at, at + SLICE);
        pending += chunk.length;
        if (skipping) {
          const eq = chunk.indexOf(0x3d); // '='
          if (eq < 0) {
            if (pending > opts.maxValueBytes) throw new ArchiveError('unreadable', `${opts.what} does not start with \`window.YTD.… = [\`.`);
            continue;
          }
          skipping = false;
          chunk = chunk.subarray(eq + 1);
        }
        if (!sawArray && chunk.length) sawArray = true;
        const before = queue.length;
        parser.write(chunk);
        if (queue.length > before) pending = 0;
        else if (pending > opts.maxValueBytes) {
          throw new ArchiveError(
            'too_large',
            `${opts.what} holds a post (or a run of bytes between two posts) larger than ${opts.maxValueBytes} bytes; at most ${opts.maxValueBytes} are accepted.`,
          );
        }
        for (const value of queue.splice(0)) {
          yield value;
          await turn();
        }
        // Past the array's end (a trailing `;`, blank lines) nothing more is read.
        if (parser.isEnded) break read;
        await turn();
      }
    }
    if (skipping || !sawArray) throw new ArchiveError('unreadable', `${opts.what} is empty or not the file we expect.`);
    if (!parser.isEnded) parser.end();
  } catch (err) {
    throw unreadable(err);
  } finally {
    input.destroy();
  }
  yield* queue.splice(0);
}
