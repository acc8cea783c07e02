// The elements of a large JSON array, one at a time, so that a file of hundreds of MB never
// becomes one object graph. @streamparser/json measured ~9 MB/s here against stream-json's
// 0.6–7 MB/s on the same outbox; at Mastodon's ~2.5 KB per activity that is what makes ≥ 1,000
// posts/s possible. X's `tweets.js` is `window.YTD.tweets.part0 = [ … ]`: the assignment before
// the array is dropped on the way in.
import type { Readable } from 'node:stream';
import { JSONParser } from '@streamparser/json';
import { ArchiveError } from './errors.js';

/**
 * Yields each element of the array at `path` (`null`: the top-level value is the array). `what`
 * names the file in the 422 a malformed file gets.
 */
export async function* jsonArrayElements(input: Readable, opts: { path: string | null; assignment: boolean; what: string }): AsyncGenerator {
  const parser = new JSONParser({ paths: [opts.path ? `$.${opts.path}.*` : '$.*'], keepStack: false });
  const queue: unknown[] = [];
  parser.onValue = ({ value }) => {
    queue.push(value);
  };
  const unreadable = (err: unknown) =>
    err instanceof ArchiveError
      ? err
      : new ArchiveError('unreadable', `${opts.what} is not readable JSON (${String((err as Error)?.message ?? err).split('\n')[0]}).`);
  let skipping = opts.assignment;
  let sawArray = false;
  try {
    for await (const c of input) {
      let chunk = c as Buffer;
      if (skipping) {
        const at = chunk.indexOf(0x3d); // '='
        if (at < 0) continue;
        skipping = false;
        chunk = chunk.subarray(at + 1);
      }
      if (!sawArray && chunk.length) sawArray = true;
      parser.write(chunk);
      while (queue.length) yield queue.shift();
    }
    if (skipping || !sawArray) throw new ArchiveError('unreadable', `${opts.what} is empty or not the file we expect.`);
    if (!parser.isEnded) parser.end();
  } catch (err) {
    input.destroy();
    throw unreadable(err);
  }
  while (queue.length) yield queue.shift();
}
