// Tails the event stream, reconnecting with backoff and Last-Event-ID (see followEvents).
import type { Command } from '@commander-js/extra-typings';
import { followEvents } from '../../../typescript/src/index.js';
import { action } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { note, printJsonLine } from '../output.js';
import { io } from '../io.js';
import { interruptible } from '../interrupt.js';

export function registerStreamCommand(program: Command) {
  program
    .command('stream')
    .description("tail the workspace's events (streamEvents); reconnects with backoff, resuming after the last event received")
    .option('--events <types>', 'comma-separated event types, e.g. riff.ready,ingest.completed (default: all)')
    .option('--last-event-id <id>', 'start after this event (replays what came after it)')
    .option('--max-events <n>', 'exit after this many events')
    .action(
      action(async (cli, o) => {
        const max = o.maxEvents === undefined ? Infinity : Number(o.maxEvents);
        if (!(max >= 1)) throw new CliError('--max-events must be at least 1.', EXIT.usage);
        let n = 0;
        // Ctrl-C and SIGTERM end it at once, even while no event arrives (exit 130 / 143).
        await interruptible(async (signal) => {
          const events = followEvents(cli.client(), {
            events: o.events
              ?.split(',')
              .map((e) => e.trim())
              .filter(Boolean),
            lastEventId: o.lastEventId,
            signal,
            onOpen: ({ reconnect, lastEventId }) =>
              note(reconnect ? `reconnected${lastEventId ? ` (after ${lastEventId})` : ''}` : 'connected; waiting for events (Ctrl-C to stop)'),
            onReconnect: ({ delayMs, error, lastEventId }) =>
              note(
                `stream dropped (${(error as Error)?.message ?? error}); reconnecting in ${(delayMs / 1000).toFixed(1)}s${lastEventId ? ` with Last-Event-ID ${lastEventId}` : ''}`,
              ),
          });
          for await (const e of events) {
            if (cli.json) printJsonLine(e);
            else io.stdout.write(`${e.created_at}  ${e.type.padEnd(17)} ${e.id}  ${JSON.stringify(e.data)}\n`);
            if (++n >= max) break;
          }
        });
      }),
    );
}
