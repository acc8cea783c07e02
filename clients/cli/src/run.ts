// Runs the command line and turns every outcome into the documented exit code.
import { CommanderError } from 'commander';
import { current } from './context.js';
import { EXIT, reportFor } from './errors.js';
import { addOperatorCommands, buildProgram, needsOperatorCommands } from './program.js';

function baseUrlOf(): string | undefined {
  try {
    return current?.settings.baseUrl;
  } catch {
    return undefined; // the settings themselves were the problem
  }
}

export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    if (needsOperatorCommands(argv.slice(2))) await addOperatorCommands(program);
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (err) {
    // commander already printed its message (or the help / version)
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const report = reportFor(err, { baseUrl: baseUrlOf(), idempotencyKey: current?.idempotencyKey });
    const json = current?.json ?? argv.includes('--json');
    process.stderr.write(json ? `${JSON.stringify(report.json)}\n` : `${report.lines.join('\n')}\n`);
    return report.exitCode;
  }
}
