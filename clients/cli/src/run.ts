// Runs the command line and turns every outcome into the documented exit code.
import { CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { current } from './context.js';
import { EXIT, reportFor } from './errors.js';
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

export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    if (needsOperatorCommands(argv.slice(2))) await addOperatorCommands(program);
    await program.parseAsync([...argv.slice(0, 2), ...separateJsonFields(argv.slice(2), commandNames(program))]);
    return EXIT.ok;
  } catch (err) {
    // commander already printed its message (or the help / version)
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const report = reportFor(err, { baseUrl: baseUrlOf(), idempotencyKey: current?.idempotencyKey });
    const json = current?.json ?? argv.some((a) => a === '--json' || a.startsWith('--json='));
    process.stderr.write(json ? `${JSON.stringify(report.json)}\n` : `${report.lines.join('\n')}\n`);
    return report.exitCode;
  }
}
