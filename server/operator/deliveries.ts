// `cpa admin deliveries list|show|retry`: the webhook emitter's deliveries, for operators. Like
// `cpa admin workspace create` this works on the database directly (the server's configuration:
// DATA_DIR / --data-dir, DATABASE_URL), not over HTTP: there is no public retry API.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { DeliveryStatus, showDelivery } from '../events/deliveries-admin.js';
import { systemClock } from '../lib/clock.js';
import { action, type Cli } from '../../clients/cli/src/context.js';
import { CliError, EXIT } from '../../clients/cli/src/errors.js';
import { printJson, printRecord, printTable, truncate } from '../../clients/cli/src/output.js';
import { withDatabase, type OperatorOptions } from './database.js';

// The database layer loads only when a command of this group runs (`cpa --help` loads no driver).
const deliveriesAdmin = () => import('../events/deliveries-admin.js');
const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

function parseStatus(value: string | undefined): DeliveryStatus | undefined {
  if (value === undefined) return undefined;
  if (!(DELIVERY_STATUSES as readonly string[]).includes(value)) throw new CliError(`--status must be one of ${DELIVERY_STATUSES.join(', ')}.`, EXIT.usage);
  return value as DeliveryStatus;
}

function parseLimit(value: string | undefined): number {
  const n = Number(value ?? '20');
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new CliError('--limit must be a whole number from 1 to 1000.', EXIT.usage);
  return n;
}

function printDelivery(cli: Cli, d: Awaited<ReturnType<typeof showDelivery>>) {
  if (cli.json) return printJson(d);
  printRecord(d, ['attempts']);
  printTable(
    ['attempt', 'X-Service-Delivery-Id', 'status', 'error', 'finished_at', 'response (start)'],
    d.attempts.map((a) => [a.attempt, a.id, a.status, a.error, a.finished_at, a.response_body === null ? null : truncate(a.response_body, 40)]),
  );
}

export function registerDeliveryCommands(admin: CommandUnknownOpts, opts: OperatorOptions = {}) {
  const deliveries = admin
    .command('deliveries')
    .description("webhook deliveries of the emitter (WEBHOOK_TARGETS): list, show, retry; reads the server's database (DATA_DIR or DATABASE_URL)");

  deliveries
    .command('list')
    .description('the latest deliveries, newest first')
    .option('--status <status>', `only deliveries in this state (${DELIVERY_STATUSES.join(', ')})`)
    .option('--event <eventId>', 'only the deliveries of this event')
    .option('--limit <n>', 'how many (1 to 1000)', '20')
    .action(
      action(async (cli, o) => {
        const rows = await withDatabase(cli, opts, async (db) =>
          (await deliveriesAdmin()).listDeliveries(db, { status: parseStatus(o.status), eventId: o.event, limit: parseLimit(o.limit) }),
        );
        if (cli.json) return printJson({ data: rows });
        printTable(
          ['id', 'event_id', 'target', 'status', 'attempts', 'last_status', 'next_attempt_at'],
          rows.map((d) => [d.id, d.event_id, truncate(d.target, 40), d.status, d.attempts, d.last_status, d.next_attempt_at]),
        );
      }),
    );

  deliveries
    .command('show')
    .description("one delivery and all its attempts (by delivery id, or by an attempt's wd_… id)")
    .argument('<id>', 'dlv_… or wd_…')
    .action(
      action(async (cli, id) => {
        printDelivery(cli, await withDatabase(cli, opts, async (db) => (await deliveriesAdmin()).showDelivery(db, id)));
      }),
    );

  deliveries
    .command('retry')
    .description('send a failed (or waiting) delivery again now; the running server attempts it within a few seconds')
    .argument('<id>', 'dlv_… or wd_…')
    .action(
      action(async (cli, id) => {
        printDelivery(cli, await withDatabase(cli, opts, async (db) => (await deliveriesAdmin()).retryDelivery(db, systemClock, id)));
      }),
    );
}
