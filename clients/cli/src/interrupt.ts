// Ending a command on SIGINT (Ctrl-C) or SIGTERM, always, with the status a shell expects of a
// command ended by a signal: 128 + its number (130, 143).
//
// Most commands install no handler: Node's default ends the process at once, which is right for
// a poll (`--wait`, `cpa wait`) or a read of stdin (`--auth-material-file -`). A command that has
// something to end first (`cpa stream` closes its connection) runs in `interruptible`: the signal
// aborts what it is doing, and its end is reported as `Interrupted`. Should it not end (a request
// that does not notice the abort), the process exits anyway, soon after: a signal is never
// swallowed.
import { CliError } from './errors.js';

export const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
type Handled = keyof typeof SIGNAL_EXIT;

/** How long a command that was asked to stop may take to end by itself before the process exits. */
const GRACE_MS = 2000;

/** The command was ended by a signal (exit 130 or 143). */
export class Interrupted extends CliError {
  constructor(readonly signal: Handled) {
    super(`interrupted (${signal})`, SIGNAL_EXIT[signal]);
  }
}

/**
 * Runs `fn` with an AbortSignal that SIGINT and SIGTERM abort; `fn` ended by one of them rejects
 * with `Interrupted`.
 */
export async function interruptible<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let received: Handled | null = null;
  const handlers = (Object.keys(SIGNAL_EXIT) as Handled[]).map((sig) => {
    const handler = () => {
      received ??= sig;
      controller.abort(new Interrupted(sig));
      setTimeout(() => process.exit(SIGNAL_EXIT[sig]), GRACE_MS).unref();
    };
    process.on(sig, handler);
    return [sig, handler] as const;
  });
  try {
    const result = await fn(controller.signal);
    if (received) throw new Interrupted(received);
    return result;
  } catch (err) {
    if (received) throw new Interrupted(received);
    throw err;
  } finally {
    for (const [sig, handler] of handlers) process.off(sig, handler);
  }
}
