// The database of the operator commands: opened as the server opens it (its configuration:
// DATA_DIR or --data-dir, DATABASE_URL; migrations applied), closed after the command.
import { ConfigError, loadConfig, type Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Db, Provider } from '../store/database.js';
import type { Cli } from '../../clients/cli/src/context.js';
import { CliError, EXIT } from '../../clients/cli/src/errors.js';

export interface OperatorOptions {
  /** The environment the server's configuration is read from (default: process.env). */
  env?: Record<string, string | undefined>;
}

const EXIT_BY_STATUS: Record<number, number> = { 404: EXIT.notFound, 409: EXIT.state };

/** Opens the server's database, runs `fn`, closes it; a refusal of the service becomes the CLI's exit code. */
export async function withDatabase<T>(
  cli: Cli,
  opts: OperatorOptions,
  fn: (db: Db, instance: { provider: Provider; config: Config }) => Promise<T>,
): Promise<T> {
  const env = { ...(opts.env ?? process.env) };
  if (typeof cli.options.dataDir === 'string') env.DATA_DIR = cli.options.dataDir;
  let database;
  let config: Config;
  try {
    config = loadConfig(env);
    // Loaded here, not at start: the database layer is heavy and only these commands need it.
    const { openDatabase } = await import('../store/database.js');
    database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT.usage);
    throw new CliError(`Cannot open the database: ${(err as Error).message}`, EXIT.unavailable);
  }
  try {
    return await fn(database.db, { provider: database.provider, config });
  } catch (err) {
    if (err instanceof AppError) throw new CliError(err.message, EXIT_BY_STATUS[err.status] ?? EXIT.unexpected);
    throw err;
  } finally {
    await database.close();
  }
}
