// Liveness, readiness, and the settings the command line resolved.
import type { Command } from '@commander-js/extra-typings';
import { unwrap } from '../../../typescript/src/index.js';
import { action } from '../context.js';
import { printJson, show } from '../output.js';
import { io } from '../io.js';

export function registerHealthCommands(program: Command) {
  program
    .command('health')
    .description('check that the server is up; needs no token (getHealth)')
    .action(
      action(async (cli) => {
        const h = await unwrap(cli.client({ auth: false }).GET('/api/health'));
        if (cli.json) printJson(h);
        else io.stdout.write(`${h.status} (${cli.settings.baseUrl})\n`);
      }),
    );

  program
    .command('ready')
    .description('check that the server can serve the API: its database answers and is migrated; needs no token (getReadiness)')
    .action(
      action(async (cli) => {
        const r = await unwrap(cli.client({ auth: false }).GET('/api/health/ready'));
        if (cli.json) printJson(r);
        else io.stdout.write(`${r.status}: ${r.database}, ${r.migrations} migrations (${cli.settings.baseUrl})\n`);
      }),
    );

  program
    .command('config')
    .description('show the base URL, where the token comes from and the config file in use (never the token)')
    .action(
      action(async (cli) => {
        const s = cli.settings;
        const shown = { base_url: s.baseUrl, token: s.token ? `set (from ${s.tokenSource})` : 'not found', config_file: s.configFile, retries: s.retries };
        show(cli.json, shown);
      }),
    );
}
