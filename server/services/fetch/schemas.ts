// Extraction schemas: the built-ins (code) and the workspace's own (the ExtractionSchema table,
// the definition stored as JSON). Selectors are parsed when a schema is stored, so that a fetch
// never fails on a schema's syntax.
import type { components } from '../../../generated/api.js';
import { API_PREFIX, forbidden, notFound, stateConflict, validationFailed } from '../../errors.js';
import * as store from '../../store/extraction-schemas.js';
import type { Caller, ServiceDeps } from '../context.js';
import { BUILTIN_SCHEMAS, type SchemaDefinition } from './builtin-schemas.js';

type FetchSchema = components['schemas']['FetchSchema'];

/** A workspace keeps at most this many schemas of its own (so the list fits one page). */
export const MAX_USER_SCHEMAS = 100;

const LIST_ENDPOINT = `GET ${API_PREFIX}/fetch/schemas`;
const listHint = { suggestedAction: 'list_fetch_schemas', suggestedEndpoint: LIST_ENDPOINT };

const builtinView = (id: string, def: SchemaDefinition): FetchSchema => ({
  id,
  builtin: true,
  description: def.description ?? null,
  fields: def.fields,
  created_at: null,
});

function rowView(row: store.ExtractionSchemaRow): FetchSchema {
  const def = JSON.parse(row.definition) as SchemaDefinition;
  return { id: row.id, builtin: false, description: def.description ?? null, fields: def.fields, created_at: row.createdAt.toISOString() };
}

function refuseBuiltin(id: string, verb: 'changed' | 'deleted'): void {
  if (Object.hasOwn(BUILTIN_SCHEMAS, id)) {
    throw forbidden(`${id} is a built-in schema and cannot be ${verb}${verb === 'changed' ? '; store yours under another id' : ''}.`);
  }
}

export async function listSchemas(deps: ServiceDeps, caller: Caller): Promise<components['schemas']['FetchSchemaList']> {
  const builtins = Object.entries(BUILTIN_SCHEMAS).map(([id, def]) => builtinView(id, def));
  const own = (await store.listExtractionSchemas(deps.db, caller.workspaceId)).map(rowView);
  return { data: [...builtins, ...own], next_cursor: null };
}

/** The schema named by a fetch request; an unknown id is 422 naming `schema_id`. */
export async function resolveSchema(deps: ServiceDeps, caller: Caller, id: string): Promise<SchemaDefinition> {
  if (Object.hasOwn(BUILTIN_SCHEMAS, id)) return BUILTIN_SCHEMAS[id];
  const row = await store.findExtractionSchema(deps.db, caller.workspaceId, id);
  if (!row) throw validationFailed('body.schema_id', `names no extraction schema of this workspace: ${id}`, listHint);
  return JSON.parse(row.definition) as SchemaDefinition;
}

async function checkSelectors(def: SchemaDefinition): Promise<void> {
  const $ = (await import('cheerio')).load(''); // loaded here, not at start (issue 27)
  for (const [name, field] of Object.entries(def.fields)) {
    field.selectors.forEach((s, i) => {
      try {
        $(s.selector);
      } catch (err) {
        throw validationFailed(`body.fields.${name}.selectors[${i}].selector`, `is not a valid CSS selector (${(err as Error).message})`);
      }
    });
  }
}

export async function putSchema(deps: ServiceDeps, caller: Caller, id: string, def: SchemaDefinition): Promise<{ created: boolean; schema: FetchSchema }> {
  refuseBuiltin(id, 'changed');
  await checkSelectors(def);
  const stored: SchemaDefinition = { description: def.description ?? null, fields: def.fields };
  const exists = await store.findExtractionSchema(deps.db, caller.workspaceId, id);
  if (!exists && (await store.countExtractionSchemas(deps.db, caller.workspaceId)) >= MAX_USER_SCHEMAS) {
    throw stateConflict(`This workspace already keeps ${MAX_USER_SCHEMAS} extraction schemas; delete one first.`, listHint);
  }
  const { row, created } = await store.putExtractionSchema(deps.db, {
    workspaceId: caller.workspaceId,
    id,
    definition: JSON.stringify(stored),
    now: deps.clock.now(),
  });
  return { created, schema: rowView(row) };
}

export async function deleteSchema(deps: ServiceDeps, caller: Caller, id: string): Promise<FetchSchema> {
  refuseBuiltin(id, 'deleted');
  const row = await store.findExtractionSchema(deps.db, caller.workspaceId, id);
  if (!row || !(await store.deleteExtractionSchema(deps.db, caller.workspaceId, id))) {
    throw notFound('extraction schema', listHint);
  }
  return rowView(row);
}
