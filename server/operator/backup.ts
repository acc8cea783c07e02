// `cpa admin backup FILE` and `cpa admin restore FILE`: a desktop (SQLite) instance copied while it
// runs and brought back on a stopped one (server/services/backup.ts). A PostgreSQL instance is
// backed up with pg_dump: its blobs are rows of the database (docs/operations.md).
import os from 'node:os';
import path from 'node:path';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { action, type Cli } from '../../clients/cli/src/context.js';
import { CliError, EXIT } from '../../clients/cli/src/errors.js';
import { note, printJson } from '../../clients/cli/src/output.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import type { OperatorOptions } from './database.js';

function configOf(cli: Cli, opts: OperatorOptions): Config {
  const env = { ...(opts.env ?? process.env) };
  if (typeof cli.options.dataDir === 'string') env.DATA_DIR = cli.options.dataDir;
  try {
    const config = loadConfig(env);
    if (config.databaseUrl)
      throw new CliError(
        'This instance keeps its data in PostgreSQL (DATABASE_URL): back it up with pg_dump, which includes the uploaded files (they are rows there); see docs/operations.md, "Backup and restore".',
        EXIT.usage,
      );
    return config;
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT.usage);
    throw err;
  }
}

/** Whether a server answers on the instance's configured address (a loaded machine may take seconds: a restore over a live instance is worse than a wait). */
async function serverAnswers(config: Config): Promise<boolean> {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  try {
    const res = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${config.port}/api/health`, { signal: AbortSignal.timeout(5000) });
    return res.ok;
  } catch {
    return false;
  }
}

const failed = (err: unknown): never => {
  if ((err as Error).name === 'BackupError' || (err as { constructor?: { name?: string } }).constructor?.name === 'BackupError')
    throw new CliError((err as Error).message, EXIT.state);
  throw err;
};

export function registerBackupCommands(admin: CommandUnknownOpts, opts: OperatorOptions = {}) {
  admin
    .command('backup')
    .description('copy this desktop instance (database, uploaded files, credentials key, token file) into one .tar.gz, while it runs')
    .argument('<file>', 'the archive to write, e.g. cpa-backup-2026-11-26.tar.gz')
    .action(
      action(async (cli, file) => {
        const config = configOf(cli, opts);
        const { backupSqlite } = await import('../services/backup.js');
        const manifest = await backupSqlite(config.dataDir, path.resolve(file)).catch(failed);
        if (cli.json) return printJson({ file: path.resolve(file), ...manifest });
        const blobs = manifest.files.filter((f) => f.path.startsWith('blobs/')).length;
        note(
          `Backed up ${config.dataDir} to ${path.resolve(file)}: ${manifest.rows.Pipeline} pipelines, ${manifest.rows.Artifact} artifacts, ${manifest.rows.SourcePost} posts, ${blobs} uploaded files, ${manifest.migrations.length} migrations. It holds the credentials key: keep it as safe as the data directory.`,
        );
      }),
    );

  admin
    .command('restore')
    .description('restore a backup made by `cpa admin backup` into the data directory of a stopped instance')
    .argument('<file>', 'the archive')
    .option('--replace', 'the data directory holds an instance already: move it aside (to DATA_DIR/replaced-<time>/) and restore over it')
    .option('--check', 'only read and check the archive (every file against its manifest); change nothing')
    .action(
      action(async (cli, file, o) => {
        const config = configOf(cli, opts);
        const backup = await import('../services/backup.js');
        if (o.check) {
          const manifest = await backup.checkBackup(path.resolve(file), path.join(os.tmpdir(), `cpa-restore-check-${process.pid}`)).catch(failed);
          if (cli.json) return printJson(manifest);
          note(`${file} is a complete backup made ${manifest.created_at}: ${manifest.files.length} files, ${manifest.migrations.length} migrations.`);
          return;
        }
        if (await serverAnswers(config))
          throw new CliError(`A server answers on ${config.host}:${config.port}: stop it before restoring into ${config.dataDir}.`, EXIT.state);
        const { manifest, movedAside } = await backup.restoreSqlite(config.dataDir, path.resolve(file), { replace: o.replace === true }).catch(failed);
        if (cli.json) return printJson({ data_dir: config.dataDir, moved_aside: movedAside, ...manifest });
        note(
          `Restored the backup of ${manifest.created_at} into ${config.dataDir}${movedAside ? ` (what was there is in ${movedAside})` : ''}. Start the server: it applies any newer migrations.`,
        );
      }),
    );
}
