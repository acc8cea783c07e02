// `cpa token`: the desktop instance's token, from ${DATA_DIR}/agent-token (DATA_DIR default ./data).
import type { Command } from '@commander-js/extra-typings';
import { action } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { printJson } from '../output.js';
import { desktopTokenFile, readTokenFile } from '../settings.js';
import { io } from '../io.js';

export function registerTokenCommand(program: Command) {
  program
    .command('token')
    .description('print the desktop token, read from ${DATA_DIR}/agent-token (DATA_DIR: --data-dir, env, default ./data)')
    .action(
      action(async (cli) => {
        const file = desktopTokenFile(cli.options.dataDir);
        const token = readTokenFile(file);
        if (!token) {
          throw new CliError(
            `No agent token at ${file}.`,
            EXIT.authentication,
            'Start the desktop server once (`npm start`) to create it, or point --data-dir / DATA_DIR at its data directory.',
          );
        }
        if (cli.json) printJson({ token, file });
        else io.stdout.write(`${token}\n`);
      }),
    );
}
