// `cpa artifacts bulk`: approve, reopen, discard or schedule up to 100 artifacts in one request
// (bulkTransitionArtifacts, bulkScheduleArtifacts). One line per artifact: done, or the error the
// single operation gives it; the exit code is 0 when every artifact was done, 8 (state) otherwise.
import { Option, type Command } from '@commander-js/extra-typings';
import { unwrap, type Schemas } from '../../../typescript/src/index.js';
import { keyOption } from '../accepted.js';
import { action, type Cli } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { note, printJson, printTable, truncate } from '../output.js';
import { destinationRefs, TO_HELP } from './destinations.js';

const collect = (v: string, all: string[]) => [...all, v];

function printResult(cli: Cli, r: Schemas['BulkResult']) {
  if (cli.json) printJson(r);
  else {
    printTable(
      ['artifact', 'status', 'state', 'scheduled at', 'error'],
      r.data.map((o) => [
        o.artifact_id,
        o.status,
        o.state ?? '',
        o.scheduled_at ?? '',
        o.refusal ? truncate(`${o.refusal.error.code}: ${o.refusal.error.message}`, 70) : '',
      ]),
    );
    note(`${r.succeeded} done, ${r.failed} refused.`);
  }
  if (r.failed > 0) throw new CliError(`${r.failed} of ${r.data.length} artifacts were refused (see each one's error).`, EXIT.state);
}

function ids(list: string[]): string[] {
  if (list.length > 100) throw new CliError(`At most 100 artifacts in one request (${list.length} given): split them.`, EXIT.usage);
  return list;
}

export function registerBulkCommands(artifacts: Command) {
  const bulk = artifacts.command('bulk').description('approve, reopen, discard or schedule up to 100 artifacts in one request');
  for (const [name, to, what] of [
    ['approve', 'ready', 'approve drafts in review'],
    ['reopen', 'review', 'send approved drafts back to review'],
    ['discard', 'discarded', 'drop drafts'],
  ] as const) {
    keyOption(
      bulk
        .command(name)
        .description(`${what}, each as \`artifacts transition --to ${to}\` would (bulkTransitionArtifacts)`)
        .argument('<artifacts...>', 'artifact ids, 1 to 100'),
    ).action(
      action(async (cli, list, o) => {
        const body = { to, artifact_ids: ids(list), idempotency_key: o.idempotencyKey };
        printResult(cli, await unwrap(cli.client().POST('/api/agent/v1/artifacts/bulk/transition', { body })));
      }),
    );
  }
  keyOption(
    bulk
      .command('schedule')
      .description(
        'schedule artifacts into the free slots from --at, one every --every minutes, each as `artifacts publish --at` would (bulkScheduleArtifacts)',
      )
      .argument('<artifacts...>', 'artifact ids, 1 to 100, in the order of their slots')
      .requiredOption('--at <time>', 'the first slot, RFC 3339 with an offset (2027-12-01T09:30:00+01:00)')
      .addOption(new Option('--every <minutes>', 'minutes between two slots (1 to 10080)').makeOptionMandatory())
      .option('--to <destination>', `${TO_HELP}; default: each artifact's or the pipeline's destinations`, collect, [] as string[]),
  ).action(
    action(async (cli, list, o) => {
      if (!/^\d+$/.test(o.every) || Number(o.every) < 1 || Number(o.every) > 10080)
        throw new CliError('--every must be a whole number of minutes from 1 to 10080.', EXIT.usage);
      const body = {
        artifact_ids: ids(list),
        at: o.at,
        every_minutes: Number(o.every),
        idempotency_key: o.idempotencyKey,
        ...(o.to.length ? { destinations: destinationRefs(o.to) } : {}),
      };
      printResult(cli, await unwrap(cli.client().POST('/api/agent/v1/artifacts/bulk/schedule', { body })));
    }),
  );
}
