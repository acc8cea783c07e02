// Option values the commands share, checked before any call (a bad one is a usage error, exit 2).
import { CliError, EXIT } from './errors.js';

/** `--limit`: a page size, 1 to 100 as every list of the API takes. */
export function limitOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 100) throw new CliError('--limit must be a whole number from 1 to 100.', EXIT.usage);
  return Number(raw);
}
