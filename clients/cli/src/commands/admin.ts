// Operator commands. They work directly on the database with the server's own configuration
// (DATABASE_URL, DATA_DIR: `loadConfig`), because there is no admin HTTP API by design.
import type { Command } from '@commander-js/extra-typings';
import { ConfigError, loadConfig } from '../../../../server/config.js';
import { randomIds } from '../../../../server/lib/clock.js';
import { action } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { note, printJson } from '../output.js';

/** The server's configuration, with `--data-dir` taking the place of DATA_DIR when given. */
function serverConfig(dataDir: string | undefined) {
  try {
    return loadConfig({ ...process.env, ...(dataDir ? { DATA_DIR: dataDir } : {}) });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT.usage);
    throw err;
  }
}

export function registerAdminCommands(program: Command): Command {
  const admin = program
    .command('admin')
    .description('operator commands, run on the server host: they use the database directly, configured like the server (DATABASE_URL, DATA_DIR)');
  const workspace = admin.command('workspace').description('workspaces and their agent tokens');
  workspace
    .command('create')
    .description('create a workspace and print its agent token once (stored hashed: it cannot be shown again)')
    .requiredOption('--name <name>', 'a name for the workspace')
    .action(
      action(async (cli, o) => {
        const name = o.name.trim();
        if (!name || name.length > 200) throw new CliError('--name must be 1 to 200 characters.', EXIT.usage);
        const config = serverConfig(cli.options.dataDir);
        // Loaded here, not at start: the database layer is heavy and only admin commands need it.
        const { openDatabase } = await import('../../../../server/store/database.js');
        let database;
        try {
          database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
        } catch (err) {
          throw new CliError(`Cannot open the database: ${(err as Error).message}`, EXIT.unavailable);
        }
        try {
          const { createWorkspace } = await import('../../../../server/services/tokens.js');
          const { workspaceId, token } = await createWorkspace({ db: database.db, ids: randomIds }, name);
          if (cli.json) return printJson({ workspace_id: workspaceId, name, token });
          note(`Created workspace ${workspaceId} (${JSON.stringify(name)}). Its agent token follows; it is shown only this once:`);
          process.stdout.write(`${token}\n`);
        } finally {
          await database.close();
        }
      }),
    );
  // `admin deliveries` (admin-deliveries.ts) is added by addOperatorCommands in program.ts, only
  // when the command line asks for `admin`: its modules load the database layer.
  return admin;
}
