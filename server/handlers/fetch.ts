// Fetch: structure a public page, and the extraction schemas its css and llm modes use.
import type { ServiceDeps } from '../services/context.js';
import { fetchUrl as fetchPage } from '../services/fetch/index.js';
import { deleteSchema, listSchemas, putSchema } from '../services/fetch/schemas.js';
import { callerOf, type Handler } from '../http/typed.js';

export function fetchHandlers(deps: ServiceDeps) {
  const fetchUrl: Handler<'fetchUrl'> = async (req) => ({ status: 200, body: await fetchPage(deps, callerOf(req), req.body) });

  const listFetchSchemas: Handler<'listFetchSchemas'> = async (req) => ({ status: 200, body: await listSchemas(deps, callerOf(req)) });

  const putFetchSchema: Handler<'putFetchSchema'> = async (req) => {
    const { created, schema } = await putSchema(deps, callerOf(req), req.path.id, req.body);
    return created ? { status: 201, body: schema } : { status: 200, body: schema };
  };

  const deleteFetchSchema: Handler<'deleteFetchSchema'> = async (req) => ({ status: 200, body: await deleteSchema(deps, callerOf(req), req.path.id) });

  return { fetchUrl, listFetchSchemas, putFetchSchema, deleteFetchSchema };
}
