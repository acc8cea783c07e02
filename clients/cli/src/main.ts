// Entry point of `cpa`: runs the command line and sets the documented exit code.
import { run } from './run.js';

// A reader that stops reading (`cpa posts list … | head -3`) closes the pipe: the next write
// fails with EPIPE. That is not an error of the command: it ends quietly with success, as git
// and gh do, instead of a stack trace and exit 1.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

process.exitCode = await run(process.argv);
