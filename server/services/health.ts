// Readiness (GET /api/health/ready): the database answers and has every migration this version needs.
import { backendUnavailable } from '../errors.js';
import { migrationState } from '../store/database.js';
import type { ServiceDeps } from './context.js';

export async function readiness(
  deps: Pick<ServiceDeps, 'db' | 'provider'>,
): Promise<{ status: 'ready'; database: 'sqlite' | 'postgresql'; migrations: number }> {
  let state: Awaited<ReturnType<typeof migrationState>>;
  try {
    state = await migrationState(deps.db, deps.provider);
  } catch (err) {
    throw backendUnavailable(`The database cannot be reached: ${(err as Error).message}`, { status: 503, headers: { 'Retry-After': '5' } });
  }
  if (state.missing.length)
    throw backendUnavailable(
      `The database lacks ${state.missing.length} migration(s) this version needs (${state.missing.join(', ')}); restart an instance of this version to apply them.`,
      {
        status: 503,
        headers: { 'Retry-After': '30' },
      },
    );
  return { status: 'ready', database: deps.provider, migrations: state.applied };
}
