// The command tree. Global options are read by every command through `optsWithGlobals()`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { registerAccountCommands } from './commands/accounts.js';
import { registerArtifactCommands } from './commands/artifacts.js';
import { registerCompletionCommand } from './commands/completion.js';
import { registerDeskCommands } from './commands/desk.js';
import { registerFetchCommand } from './commands/fetch.js';
import { registerHealthCommands } from './commands/health.js';
import { registerImportCommands } from './commands/imports.js';
import { registerListCommands } from './commands/lists.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerMediaCommands } from './commands/media.js';
import { registerPipelineCommands } from './commands/pipelines.js';
import { registerPostCommands } from './commands/posts.js';
import { registerRunCommands } from './commands/runs.js';
import { registerSchemaCommands } from './commands/schemas.js';
import { registerSessionCommands } from './commands/sessions.js';
import { registerStreamCommand } from './commands/stream.js';
import { registerTokenCommand } from './commands/token.js';
import { registerTokensCommands } from './commands/tokens.js';
import { registerWorkspaceCommands } from './commands/workspace.js';
import { EXIT_CODES_HELP } from './errors.js';
import type { OperatorCommands } from './operator-seam.js';
import { io } from './io.js';
import { DEFAULT_BASE_URL } from './settings.js';
import { projectRootOf } from '../../../shared/project-root.js';

// Found by name, not by depth: the same from the sources and from the compiled clients/cli/dist.
const version = (JSON.parse(readFileSync(path.join(projectRootOf(import.meta.url), 'package.json'), 'utf8')) as { version: string }).version;

const CONFIG_HELP = `Configuration (first found wins):
  base URL  --base-url, CPA_BASE_URL, "base_url" in the config file, else ${DEFAULT_BASE_URL}
  token     --token, CPA_TOKEN, "token" (or "token_file") in the config file, else — for a
            server on this machine only — the desktop token file \${DATA_DIR}/agent-token
            (--data-dir or DATA_DIR, default ./data)
  config    --config, CPA_CONFIG, else \${XDG_CONFIG_HOME:-~/.config}/cpa/config.json
            e.g. {"base_url": "https://cp.example.com", "token": "<64 hex>"}

Mutating commands send an idempotency key: a new UUID, or --idempotency-key to reuse one, so
a retried command never does the work twice. Results go to stdout: tables on a terminal,
tab-separated lines without a header when stdout is a pipe or a file (CPA_FORCE_TTY=1 keeps
the tables), or JSON with --json (--json id,state keeps those fields, of each item of a list).
Progress and errors go to stderr. Errors show the code, message, suggested action and request
id.`;

export function buildProgram(): Command {
  const program = new Command('cpa');
  program
    .description('The Content Pipeline command line: every operation of the Agent API and the session bridges, the event stream, runs, and the MCP server.')
    .version(version)
    .addOption(new Option('--base-url <url>', `the server's root URL (default ${DEFAULT_BASE_URL})`).env('CPA_BASE_URL'))
    .addOption(new Option('--token <token>', 'the agent token (64 hex characters, or cpa_ and 64 of them)').env('CPA_TOKEN'))
    .addOption(new Option('--config <file>', 'the config file').env('CPA_CONFIG'))
    .addOption(new Option('--data-dir <dir>', "a desktop instance's data directory (its agent-token file)").env('DATA_DIR'))
    .addOption(
      new Option(
        '--retries <n>',
        'retries (default 3): a 429 after Retry-After; a lost connection, a 5xx or a 409 retry_later of a read or of a keyed mutating command with backoff',
      ).env('CPA_RETRIES'),
    )
    .option('--json [fields]', 'print results as JSON on stdout, errors as JSON on stderr; --json id,state keeps only those fields (of each item of a list)')
    .exitOverride()
    // commander's own output (help, usage errors) goes where the command's does (io.ts)
    .configureOutput({
      writeOut: (str) => io.stdout.write(str),
      writeErr: (str) => io.stderr.write(str),
      getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns) || 80,
      getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns) || 80,
    })
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', `\n${CONFIG_HELP}\n\n${EXIT_CODES_HELP}\n`);

  registerPipelineCommands(program);
  registerPostCommands(program);
  registerArtifactCommands(program);
  registerAccountCommands(program);
  registerImportCommands(program);
  registerTokensCommands(program);
  registerWorkspaceCommands(program);
  registerMediaCommands(program);
  registerFetchCommand(program);
  registerSchemaCommands(program);
  registerSessionCommands(program);
  registerRunCommands(program);
  registerListCommands(program);
  registerStreamCommand(program);
  registerHealthCommands(program);
  registerTokenCommand(program);
  registerDeskCommands(program);
  program
    .command('admin')
    .description('operator commands, run on the server host: they use the database directly, configured like the server (DATABASE_URL, DATA_DIR)');
  registerMcpCommand(program);
  registerCompletionCommand(program);
  return program;
}

export type { OperatorCommands } from './operator-seam.js';

/**
 * Adds the operator commands (`admin workspace`, `admin deliveries`). Their modules load the store
 * (Kysely and the database drivers), so they are added only when the command line asks for `admin`
 * (or `completion`, which lists every command): every other command starts without that weight.
 */
export async function addOperatorCommands(program: CommandUnknownOpts): Promise<void> {
  const admin = program.commands.find((c) => c.name() === 'admin');
  if (!admin) throw new Error('the admin command is missing');
  const operator: OperatorCommands = await import('#cpa/operator-commands');
  operator.registerOperatorCommands(admin);
}

export const needsOperatorCommands = (args: string[]) => args.some((a) => a === 'admin' || a === 'completion');
