// `cpa admin deliveries list|show|retry`: the webhook emitter's deliveries, for operators. Like
// `cpa admin workspace create` this works on the database directly (the server's configuration:
// DATA_DIR / --data-dir, DATABASE_URL), not over HTTP: there is no public retry API.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { ConfigError, loadConfig } from '../../../../server/config.js';
import { AppError } from '../../../../server/errors.js';
import type { DeliveryStatus, showDelivery } from '../../../../server/events/deliveries-admin.js';
import { systemClock } from '../../../../server/lib/clock.js';
import type { Db } from '../../../../server/store/database.js';

// The database layer loads only when a command of this group runs (`cpa --help` loads no driver).
const deliveriesAdmin = () => import('../../../../server/events/deliveries-admin.js');
const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];
import { action, type Cli } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { printJson, printRecord, printTable, truncate } from '../output.js';

export interface DeliveryCommandOptions {
  /** The environment the server's configuration is read from (default: process.env). */
  env?: Record<string, string | undefined>;
}

const EXIT_BY_STATUS: Record<number, number> = { 404: EXIT.notFound, 409: EXIT.state };

/** Opens the server's database (as the server would: same configuration, migrations applied), runs `fn`, closes it. */
async function withDatabase<T>(cli: Cli, opts: DeliveryCommandOptions, fn: (db: Db) => Promise<T>): Promise<T> {
  const env = { ...(opts.env ?? process.env) };
  if (typeof cli.options.dataDir === 'string') env.DATA_DIR = cli.options.dataDir;
  let database;
  try {
    const config = loadConfig(env);
    const { openDatabase } = await import('../../../../server/store/database.js');
    database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT.usage);
    throw new CliError(`Cannot open the database: ${(err as Error).message}`, EXIT.unavailable);
  }
  try {
    return await fn(database.db);
  } catch (err) {
    if (err instanceof AppError) throw new CliError(err.message, EXIT_BY_STATUS[err.status] ?? EXIT.unexpected);
    throw err;
  } finally {
    await database.close();
  }
}

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

export function registerDeliveryCommands(admin: CommandUnknownOpts, opts: DeliveryCommandOptions = {}) {
  const deliveries = admin
    .command('deliveries')
    .description('webhook deliveries of the emitter (WEBHOOK_TARGETS): list, show, retry; reads the server\'s database (DATA_DIR or DATABASE_URL)');

  deliveries
    .command('list')
    .description('the latest deliveries, newest first')
    .option('--status <status>', `only deliveries in this state (${DELIVERY_STATUSES.join(', ')})`)
    .option('--event <eventId>', 'only the deliveries of this event')
    .option('--limit <n>', 'how many (1 to 1000)', '20')
    .action(
      action(async (cli, o) => {
        const rows = await withDatabase(cli, opts, async (db) => (await deliveriesAdmin()).listDeliveries(db, { status: parseStatus(o.status), eventId: o.event, limit: parseLimit(o.limit) }));
        if (cli.json) return printJson({ data: rows });
        printTable(
          ['id', 'event_id', 'target', 'status', 'attempts', 'last_status', 'next_attempt_at'],
          rows.map((d) => [d.id, d.event_id, truncate(d.target, 40), d.status, d.attempts, d.last_status, d.next_attempt_at]),
        );
      }),
    );

  deliveries
    .command('show')
    .description('one delivery and all its attempts (by delivery id, or by an attempt\'s wd_… id)')
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
