// Imports of data exports: the body is the export's raw bytes, streamed to the service.
import * as imports from '../services/imports.js';
import type { ServiceDeps } from '../services/context.js';
import { callerOf, type Handler } from '../http/typed.js';

export function importHandlers(deps: ServiceDeps) {
  const createImport: Handler<'createImport'> = async (req) => {
    const { status, body } = await imports.createImport(deps, callerOf(req), req.query, req.bodyStream);
    return status === 201 ? { status, body } : { status, body, headers: { 'Idempotent-Replayed': 'true' } };
  };
  const getImport: Handler<'getImport'> = async (req) => ({ status: 200, body: await imports.getImport(deps, callerOf(req), req.path.id) });
  return { createImport, getImport };
}
