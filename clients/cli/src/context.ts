// What every command action gets: the resolved settings, the typed client, the output mode and
// the idempotency key of a mutating command.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { parseJsonFields, setJsonFields, show } from './output.js';
import { createApiClient, type ApiClient } from '../../typescript/src/index.js';
import { CliError, EXIT } from './errors.js';
import { io } from './io.js';
import { resolveSettings, type GlobalOptions, type Settings } from './settings.js';

export const USER_AGENT = 'cpa/1 (content-pipeline command line)';

export class Cli {
  private cached: Settings | null = null;
  /** The idempotency key of the command's first keyed call (given or generated), so that an error report can say how to retry safely. */
  idempotencyKey: string | undefined;

  constructor(readonly options: GlobalOptions & Record<string, unknown>) {}

  /** `--json`, with or without a field list (the list is applied by `printJson`). */
  get json(): boolean {
    const j = this.options.json;
    return j !== undefined && j !== false;
  }

  get settings(): Settings {
    this.cached ??= resolveSettings(this.options);
    return this.cached;
  }

  /** The typed client; `auth: false` for the operations that need no token. */
  client(opts: { auth?: boolean; retries?: number } = {}): ApiClient {
    const s = this.settings;
    if (opts.auth !== false && !s.token) {
      throw new CliError(
        'No agent token: pass --token, set CPA_TOKEN, put "token" in the config file, or run beside a desktop instance (its data/agent-token is read).',
        EXIT.authentication,
        'On a desktop instance `npx cpa token` prints it; on a team host an operator runs `npx cpa admin workspace create --name NAME`.',
      );
    }
    return createApiClient({
      baseUrl: s.baseUrl,
      token: s.token ?? undefined,
      maxRetries: opts.retries ?? s.retries,
      userAgent: USER_AGENT,
      fetch: io.fetch,
      onIdempotencyKey: (key) => (this.idempotencyKey ??= key),
    });
  }
}

/** The context of the action being run (set by `action`, read by the error reporter). */
export let current: Cli | null = null;

/**
 * Wraps an action: commander passes the positional arguments, the command's options and the
 * command; the wrapped function gets the context, the positionals and the options. Their types
 * come from the command's declaration (@commander-js/extra-typings infers them from
 * `.argument('<id>')`, `.option('--limit <n>')`, `.choices([...])`, …): written inline,
 * `.action(action(async (cli, id, o) => …))`, nothing is declared twice.
 */
export function action<A extends unknown[]>(fn: (cli: Cli, ...args: A) => Promise<void>): (...args: [...A, unknown]) => Promise<void> {
  return async (...all: unknown[]) => {
    const cmd = all[all.length - 1] as CommandUnknownOpts; // commander passes the command last
    const cli = new Cli(cmd.optsWithGlobals());
    current = cli;
    setJsonFields(parseJsonFields(cli.options.json));
    await fn(cli, ...(all.slice(0, -1) as A));
  };
}

/**
 * A command that takes one id, makes one call with it and shows the resource it answers
 * (`pipelines get`, `runs get`, `schemas delete`, ...).
 */
export function idCommand(
  parent: CommandUnknownOpts,
  name: string,
  description: string,
  arg: { name: string; description: string },
  call: (client: ApiClient, id: string) => Promise<Record<string, unknown>>,
) {
  return parent
    .command(name)
    .description(description)
    .argument(`<${arg.name}>`, arg.description)
    .action(action(async (cli, id) => show(cli.json, await call(cli.client(), id))));
}
