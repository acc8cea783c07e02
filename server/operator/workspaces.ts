// `cpa admin workspace create`: a workspace and its agent token, made directly in the database
// with the server's own configuration (DATABASE_URL, DATA_DIR), because there is no admin HTTP API
// by design. `cpa admin workspace export` / `import`: a workspace moved between instances
// (server/services/workspace-move.ts; docs/operations.md, "Move a workspace").
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { randomIds, systemClock } from '../lib/clock.js';
import { action } from '../../clients/cli/src/context.js';
import { CliError, EXIT } from '../../clients/cli/src/errors.js';
import { io } from '../../clients/cli/src/io.js';
import { note, printJson } from '../../clients/cli/src/output.js';
import { withDatabase, type OperatorOptions } from './database.js';
import type { AuditEntry } from '../services/audit.js';
import type { Db } from '../store/database.js';

/** Records an operator command in the workspace's record of who did what (actor `operator`, the host's user). */
async function recordOperator(db: Db, e: Omit<AuditEntry, 'actor'>): Promise<void> {
  const { operatorActor, recordAudit } = await import('../services/audit.js');
  await recordAudit(db, { clock: systemClock, ids: randomIds }, { ...e, actor: operatorActor() });
}

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
          const created = await createWorkspace({ db, ids: randomIds }, name);
          await recordOperator(db, {
            workspaceId: created.workspaceId,
            action: 'workspace.created',
            subject: { type: 'workspace', id: created.workspaceId },
            summary: `Created the workspace ${JSON.stringify(name)} and its default token (cpa admin workspace create)`,
          });
          return created;
        });
        if (cli.json) return printJson({ workspace_id: workspaceId, name, token });
        note(`Created workspace ${workspaceId} (${JSON.stringify(name)}). Its agent token follows; it is shown only this once:`);
        io.stdout.write(`${token}\n`);
      }),
    );
  workspace
    .command('export')
    .description(
      'write one workspace (posts, drafts, media, schedules, accounts without their secrets, events of the last 7 days, the record of who did what) to one .tar.gz',
    )
    .argument('<file>', 'the archive to write, e.g. my-workspace.tar.gz')
    .option('--workspace <id>', 'the workspace (default: the only one, as on a desktop)')
    .option('--with-secrets', 'carry the accounts’ credentials, encrypted with the passphrase of --passphrase-file')
    .option('--passphrase-file <file>', 'a file holding the passphrase (its first line) that encrypts the credentials')
    .action(
      action(async (cli, file, o) => {
        if (o.withSecrets && !o.passphraseFile)
          throw new CliError('--with-secrets needs --passphrase-file FILE (the passphrase that encrypts the credentials).', EXIT.usage);
        if (o.passphraseFile && !o.withSecrets) throw new CliError('--passphrase-file is for --with-secrets.', EXIT.usage);
        const passphrase = o.passphraseFile ? readPassphrase(o.passphraseFile) : undefined;
        const out = path.resolve(file);
        const manifest = await withDatabase(cli, opts, async (db, { provider, config }) => {
          const move = await import('../services/workspace-move.js');
          const m = await move.exportWorkspace({ db, provider, config }, out, { workspaceId: o.workspace, passphrase }).catch(failed);
          // Who took a copy of the workspace, and whether its credentials went with it.
          await recordOperator(db, {
            workspaceId: m.workspace_id,
            action: 'workspace.exported',
            subject: { type: 'workspace', id: m.workspace_id },
            summary: `Exported the workspace to ${path.basename(out)} (${m.secrets ? 'with its credentials, encrypted' : 'without credentials'})`,
            detail: { with_secrets: m.secrets !== null, created_at: m.created_at },
          });
          return m;
        });
        if (cli.json) return printJson({ file: out, ...manifest });
        const rows = Object.fromEntries(manifest.tables.map((t) => [t.table, t.rows]));
        note(
          `Exported workspace ${manifest.workspace_id} to ${out}: ${rows.Pipeline} pipelines, ${rows.SourcePost} posts, ${rows.Artifact} artifacts, ${manifest.media.length} media files, ${rows.Account} accounts (${manifest.secrets ? 'credentials encrypted with the passphrase' : 'without their credentials'}), ${rows.Event} events of the last 7 days.`,
        );
      }),
    );

  workspace
    .command('import')
    .description(
      'load a workspace archive made by `cpa admin workspace export` into this instance, keeping every id, and print its new agent token once (refused when the workspace exists here, or when a row of it is not the workspace’s own)',
    )
    .argument('<file>', 'the archive')
    .option('--passphrase-file <file>', 'the passphrase of an archive exported --with-secrets')
    .option('--check', 'only read and check the archive (every file against its manifest); change nothing')
    .action(
      action(async (cli, file, o) => {
        const move = await import('../services/workspace-move.js');
        const scratch = path.join(os.tmpdir(), `cpa-workspace-import-${process.pid}`);
        if (o.check) {
          const manifest = await move.checkWorkspaceArchive(path.resolve(file), scratch).catch(failed);
          if (cli.json) return printJson(manifest);
          note(`${file} is a complete archive of workspace ${manifest.workspace_id}, made ${manifest.created_at}: ${manifest.files.length} files.`);
          return;
        }
        const passphrase = o.passphraseFile ? readPassphrase(o.passphraseFile) : undefined;
        const { manifest, accountsToReconnect, token } = await withDatabase(cli, opts, (db, { provider, config }) =>
          move.importWorkspace({ db, provider, config }, path.resolve(file), { passphrase, scratch }).catch(failed),
        );
        if (cli.json) return printJson({ workspace_id: manifest.workspace_id, accounts_to_reconnect: accountsToReconnect, tables: manifest.tables, token });
        const rows = Object.fromEntries(manifest.tables.map((t) => [t.table, t.rows]));
        note(
          `Imported workspace ${manifest.workspace_id}: ${rows.Pipeline} pipelines, ${rows.SourcePost} posts, ${rows.Artifact} artifacts, ${manifest.media.length} media files.${accountsToReconnect ? ` ${accountsToReconnect} accounts came without their credentials: connect them again (cpa accounts connect).` : ''} Queued runs (schedules) run here from now on: pause or delete the workspace on the old instance so that nothing is published twice. The tokens of the old instance do not work here; the workspace's agent token on this instance follows, shown only this once:`,
        );
        io.stdout.write(`${token}\n`);
      }),
    );
}

function readPassphrase(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read the passphrase file ${file}: ${(err as Error).message}`, EXIT.usage);
  }
  const passphrase = text.split(/\r?\n/)[0] ?? '';
  if (passphrase.length < 12) throw new CliError(`The passphrase in ${file} is shorter than 12 characters.`, EXIT.usage);
  return passphrase;
}

const failed = (err: unknown): never => {
  if ((err as Error).name === 'MoveError' || (err as { constructor?: { name?: string } }).constructor?.name === 'MoveError')
    throw new CliError((err as Error).message, EXIT.state);
  throw err;
};
