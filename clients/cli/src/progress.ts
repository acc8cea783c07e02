// Following a run with a progress display on stderr: one updating line on a terminal, one line
// per change otherwise (logs and CI stay readable).
import { waitForRun, type ApiClient, type Run } from '../../typescript/src/index.js';
import { CliError, EXIT } from './errors.js';
import { io } from './io.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The progress line: a run waiting to retry says why, and when its next attempt is due. */
export function describeRun(run: Run, startedMs: number): string {
  const seconds = Math.round((Date.now() - startedMs) / 1000);
  const attempt = run.attempts ? ` · attempt ${run.attempts}` : '';
  const p = run.progress;
  const progress = p && p.total ? ` · ${p.done.toLocaleString('en')} of ${p.total.toLocaleString('en')} (${Math.floor((p.done / p.total) * 100)}%)` : '';
  const retry =
    run.retrying && run.last_error ? ` · retrying after ${run.last_error.code}: ${run.last_error.message} · next attempt at ${run.next_attempt_at}` : '';
  return `run ${run.run_id} (${run.kind}): ${run.status}${progress}${attempt}${retry} · ${seconds}s`;
}

/** Polls the run to its end (RunTimeoutError, exit 11, past the timeout). A failed run is returned. */
export async function followRun(client: ApiClient, runId: string, opts: { timeoutSeconds?: number; intervalMs?: number; quiet?: boolean } = {}): Promise<Run> {
  const tty = Boolean(io.stderr.isTTY);
  const started = Date.now();
  let last = '';
  let frame = 0;
  const onProgress = (run: Run) => {
    if (opts.quiet) return;
    const line = describeRun(run, started);
    if (tty) io.stderr.write(`\r\x1b[2K${SPINNER[frame++ % SPINNER.length]} ${line}`);
    // Off a terminal: a line when the status or the retrying changes, and at each tenth of the progress.
    const key = `${run.status}${run.retrying}` + (run.progress ? `:${Math.floor((run.progress.done / Math.max(1, run.progress.total)) * 10)}` : '');
    if (!tty && key !== last) io.stderr.write(`${line}\n`);
    last = key;
  };
  try {
    const run = await waitForRun(client, runId, {
      timeoutMs: opts.timeoutSeconds === undefined ? undefined : opts.timeoutSeconds * 1000,
      intervalMs: opts.intervalMs,
      onProgress,
    });
    if (tty && !opts.quiet) io.stderr.write(`\r\x1b[2K${describeRun(run, started)}\n`);
    return run;
  } finally {
    if (tty && !opts.quiet) io.stderr.write('\r\x1b[2K');
  }
}

export function timeoutOption(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new CliError('--timeout must be a number of seconds.', EXIT.usage);
  return n;
}

/** After the result was printed: a failed run ends the command with exit code 10. */
export function assertSucceeded(run: Run) {
  if (run.status === 'failed') {
    throw new CliError(`Run ${run.run_id} failed: ${run.error?.code ?? 'failed'}: ${run.error?.message ?? ''}`.trim(), EXIT.runFailed);
  }
}
