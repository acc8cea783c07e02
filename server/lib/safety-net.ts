// The process-level safety net: an error nothing handled (an 'error' event without a listener, a
// throw in a callback, a rejected promise nobody awaited) is logged, with the id of the request
// it came from, and the process goes on serving everyone else. It is no substitute for handling
// each stream (every upload stream has its own abort and error handling, services/upload-body.ts);
// it is what keeps a bug of that kind from ending every other request and stream with it.
// `requestContext` carries the request id through the asynchronous work a request starts
// (AsyncLocalStorage: timers, promises, stream callbacks and event emissions keep it).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';

export const requestContext = new AsyncLocalStorage<{ reqId: string }>();

/** Installs the net on `proc` (the process; once, by server/main.ts); returns a function that removes it. */
export function installSafetyNet(logger: Logger, proc: NodeJS.Process = process): () => void {
  const uncaught = (err: Error, origin: string) => {
    logger.error({ err, origin, reqId: requestContext.getStore()?.reqId }, 'an unexpected error was not handled; the server keeps running');
  };
  const unhandled = (reason: unknown) => {
    logger.error(
      { err: reason, origin: 'unhandledRejection', reqId: requestContext.getStore()?.reqId },
      'a promise was rejected and not handled; the server keeps running',
    );
  };
  proc.on('uncaughtException', uncaught);
  proc.on('unhandledRejection', unhandled);
  return () => {
    proc.off('uncaughtException', uncaught);
    proc.off('unhandledRejection', unhandled);
  };
}
