// Entry point of `cpa`: runs the command line and sets the documented exit code.
import { run } from './run.js';

process.exitCode = await run(process.argv);
