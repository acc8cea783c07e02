// Runs the command line and turns every outcome into the documented exit code.
import { CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { current } from './context.js';
import { EXIT, reportFor } from './errors.js';
import { io, withIo, type CliIo } from './io.js';
import { separateJsonFields } from './output.js';
import { addOperatorCommands, buildProgram, needsOperatorCommands } from './program.js';

function baseUrlOf(): string | undefined {
  try {
    return current?.settings.baseUrl;
  } catch {
    return undefined; // the settings themselves were the problem
  }
}

/** Every command and subcommand name (and alias) of the tree. */
function commandNames(cmd: CommandUnknownOpts, names = new Set<string>()): Set<string> {
  for (const c of cmd.commands) {
    names.add(c.name());
    for (const a of c.aliases()) names.add(a);
    commandNames(c, names);
  }
  return names;
}

/**
 * Parses `argv` (with commander's option environment variables, `--token` ← CPA_TOKEN, …, read
 * from `io.env`). Commander reads them from `process.env` while it parses, which it does
 * synchronously up to the action: `process.env` is `io.env` for that part only.
 */
function parse(program: CommandUnknownOpts, argv: string[]): Promise<unknown> {
  if (io.env === process.env) return program.parseAsync(argv);
  const saved = process.env;
  process.env = io.env;
  try {
    return program.parseAsync(argv);
  } finally {
    process.env = saved;
  }
}

export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    if (needsOperatorCommands(argv.slice(2))) await addOperatorCommands(program);
    await parse(program, [...argv.slice(0, 2), ...separateJsonFields(argv.slice(2), commandNames(program))]);
    return EXIT.ok;
  } catch (err) {
    // commander already printed its message (or the help / version)
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const report = reportFor(err, { baseUrl: baseUrlOf(), idempotencyKey: current?.idempotencyKey });
    const json = current?.json ?? argv.some((a) => a === '--json' || a.startsWith('--json='));
    io.stderr.write(json ? `${JSON.stringify(report.json)}\n` : `${report.lines.join('\n')}\n`);
    return report.exitCode;
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs of `runCli` go one after the other: the context, like the command's state, is the module's. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs `cpa ARGS…` in this process against `ctx` instead of the process's streams, environment
 * and fetch: what it printed and its exit code. `tty` makes stdout and stderr terminals. Calls
 * made together run one after the other.
 */
export function runCli(args: string[], ctx: Parameters<typeof runIn>[1] = {}): Promise<CliRun> {
  const next = queue.then(() => runIn(args, ctx));
  queue = next.catch(() => undefined);
  return next;
}

async function runIn(args: string[], ctx: { env?: NodeJS.ProcessEnv; fetch?: typeof globalThis.fetch; tty?: boolean; columns?: number } = {}): Promise<CliRun> {
  const out = { stdout: '', stderr: '' };
  const stream = (name: keyof typeof out) => ({ isTTY: ctx.tty ?? false, columns: ctx.columns ?? 100, write: (chunk: string) => ((out[name] += chunk), true) });
  const context: CliIo = { stdout: stream('stdout'), stderr: stream('stderr'), env: ctx.env ?? {}, fetch: ctx.fetch ?? ((...a) => globalThis.fetch(...a)) };
  const code = await withIo(context, () => run(['node', 'cpa', ...args]));
  return { code, ...out };
}
