// `cpa admin workspace create`: a workspace and its agent token, made directly in the database
// with the server's own configuration (DATABASE_URL, DATA_DIR), because there is no admin HTTP API
// by design.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { randomIds } from '../lib/clock.js';
import { action } from '../../clients/cli/src/context.js';
import { CliError, EXIT } from '../../clients/cli/src/errors.js';
import { note, printJson } from '../../clients/cli/src/output.js';
import { withDatabase, type OperatorOptions } from './database.js';

export function registerWorkspaceCommands(admin: CommandUnknownOpts, opts: OperatorOptions = {}) {
  const workspace = admin.command('workspace').description('workspaces and their agent tokens');
  workspace
    .command('create')
    .description('create a workspace and print its agent token once (stored hashed: it cannot be shown again)')
    .requiredOption('--name <name>', 'a name for the workspace')
    .action(
      action(async (cli, o) => {
        const name = o.name.trim();
        if (!name || name.length > 200) throw new CliError('--name must be 1 to 200 characters.', EXIT.usage);
        const { workspaceId, token } = await withDatabase(cli, opts, async (db) => {
          const { createWorkspace } = await import('../services/tokens.js');
          return createWorkspace({ db, ids: randomIds }, name);
        });
        if (cli.json) return printJson({ workspace_id: workspaceId, name, token });
        note(`Created workspace ${workspaceId} (${JSON.stringify(name)}). Its agent token follows; it is shown only this once:`);
        process.stdout.write(`${token}\n`);
      }),
    );
}
