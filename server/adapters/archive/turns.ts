// Long loops over an archive's entries and records give the event loop a turn now and then, so
// that a large or hostile export never holds every other request (`/api/health` included) for
// more than a few milliseconds. Chunks that are already in memory (a bufferSource, cached
// blocks, parsed elements) are handed on with promises only, and promises alone never let timers
// or sockets run: hence an explicit `setImmediate` once a slice of work has been done.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Milliseconds of work between two turns given to the event loop. */
export const TURN_MS = 8;

/** A function to await inside a loop: it yields to the event loop once `TURN_MS` have passed since the last time. */
export function turns(budgetMs = TURN_MS): () => Promise<void> | undefined {
  let last = performance.now();
  return () => {
    if (performance.now() - last < budgetMs) return undefined;
    return nextTurn().then(() => {
      last = performance.now();
    });
  };
}
