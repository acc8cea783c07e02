// Runs: read one, or follow it to its end.
import type { Command } from '@commander-js/extra-typings';
import { unwrap } from '../../../typescript/src/index.js';
import { action, idCommand } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { show } from '../output.js';
import { assertSucceeded, followRun, timeoutOption } from '../progress.js';

export function registerRunCommands(program: Command) {
  const runs = program.command('runs').description('long-running work (ingest, drafting, regeneration, refresh)');
  idCommand(runs, 'get', 'show a run: kind, status, attempts, times, error (getRun)', { name: 'run', description: 'run id' }, (client, id) =>
    unwrap(client.GET('/api/agent/v1/runs/{id}', { params: { path: { id } } })),
  );

  program
    .command('wait')
    .description('follow a run to its end with a progress display; exit 0 when it succeeded, 10 when it failed, 11 on --timeout')
    .argument('<run>', 'run id')
    .option('--timeout <seconds>', 'stop waiting after this long')
    .option('--interval <ms>', 'first poll interval in milliseconds (default 500; grows to 5000)')
    .action(
      action(async (cli, id, o) => {
        const interval = o.interval === undefined ? undefined : Number(o.interval);
        if (interval !== undefined && !(interval >= 50)) throw new CliError('--interval must be at least 50 (milliseconds).', EXIT.usage);
        const run = await followRun(cli.client(), id, { timeoutSeconds: timeoutOption(o.timeout), intervalMs: interval, quiet: cli.json });
        show(cli.json, run);
        assertSucceeded(run);
      }),
    );
}
