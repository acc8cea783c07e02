// What the benchmark scripts share: their command line (`--db`, `--name value` or `--name=value`)
// and the form of their progress lines on stderr.

export type Kind = 'sqlite' | 'postgresql';

/** The value of `--name=value` or `--name value`, if given. */
export const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ??
  (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : undefined);

/** The databases to measure: the one `--db` names, else both. */
export function kindsFromArgs(): Kind[] {
  const db = arg('db');
  return db === 'sqlite' || db === 'postgresql' ? [db] : ['sqlite', 'postgresql'];
}

/** A progress line on stderr, `[tag hh:mm:ss] message`. */
export const logger =
  (tag: string) =>
  (msg: string): void =>
    console.error(`[${tag} ${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** Bytes as MiB with one decimal. */
export const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
