// What a command reads from and writes to outside the process's own state: the output streams
// (and whether they are terminals), the environment and `fetch`. `process` by default; `runCli`
// (run.ts) runs a command line against another one, which is how the tests run most commands in
// their own process, as `gh`'s tests do with its IOStreams.
export interface OutStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  /** Width of a terminal (for the help). */
  columns?: number;
}

export interface CliIo {
  stdout: OutStream;
  stderr: OutStream;
  env: NodeJS.ProcessEnv;
  fetch: typeof globalThis.fetch;
}

export const processIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env, fetch: (...a) => globalThis.fetch(...a) });

/** The context of the command line being run. */
export let io: CliIo = processIo();

/** Runs `fn` with `next` as the context, then puts the previous one back. */
export async function withIo<T>(next: CliIo, fn: () => Promise<T>): Promise<T> {
  const previous = io;
  io = next;
  try {
    return await fn();
  } finally {
    io = previous;
  }
}
