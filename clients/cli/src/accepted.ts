// Operations that queue work answer a run id at once; `--wait` follows the run to its end.
import type { Command, OptionValues } from '@commander-js/extra-typings';
import type { Cli } from './context.js';
import { note, printJson, printRecord } from './output.js';
import { assertSucceeded, followRun, timeoutOption } from './progress.js';

export interface WaitFlags {
  wait?: boolean;
  timeout?: string;
}

/** Adds `--wait` and `--timeout` to a command that answers a run id. */
export function waitOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(cmd: Command<A, O, G>) {
  return cmd
    .option('--wait', 'follow the queued run to its end (progress on stderr)')
    .option('--timeout <seconds>', 'with --wait: stop waiting after this long (exit code 11)');
}

export async function printAccepted(cli: Cli, result: { run_id: string } & Record<string, unknown>, flags: WaitFlags) {
  if (!flags.wait) {
    if (cli.json) printJson(result);
    else {
      printRecord(result);
      note(`Follow the run: cpa wait ${result.run_id}`);
    }
    return;
  }
  const run = await followRun(cli.client(), result.run_id, { timeoutSeconds: timeoutOption(flags.timeout), quiet: cli.json });
  if (cli.json) printJson({ ...result, run });
  else {
    printRecord(result);
    printRecord(run);
  }
  assertSucceeded(run);
}

/** `--idempotency-key` for a mutating command. */
export function keyOption<A extends unknown[], O extends OptionValues, G extends OptionValues>(cmd: Command<A, O, G>) {
  return cmd.option('--idempotency-key <key>', 'idempotency key, 16-128 printable characters (default: a new UUID); reuse it to retry safely');
}
