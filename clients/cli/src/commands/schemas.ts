// Extraction schemas for `cpa fetch --schema` (css mode): list, store (from a JSON file), delete.
import { readFileSync } from 'node:fs';
import type { Command } from '@commander-js/extra-typings';
import { unwrap, type Schemas } from '../../../typescript/src/index.js';
import { action, idCommand } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { printJson, printTable, show, truncate } from '../output.js';

/** A schema definition from a file (`-`: stdin): `{ "description"?, "fields": { name: { selectors: [...] } } }`. */
function definitionFrom(file: string): Schemas['FetchSchemaDefinition'] {
  let raw: string;
  try {
    raw = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`, EXIT.usage);
  }
  try {
    return JSON.parse(raw) as Schemas['FetchSchemaDefinition'];
  } catch (err) {
    throw new CliError(`${file} is not JSON: ${(err as Error).message}`, EXIT.usage);
  }
}

export function registerSchemaCommands(program: Command) {
  const schemas = program.command('schemas').description('extraction schemas for `cpa fetch --schema` (css mode)');

  schemas
    .command('list')
    .description('list the built-in and the workspace’s extraction schemas (listFetchSchemas)')
    .action(
      action(async (cli) => {
        const list = await unwrap(cli.client().GET('/api/agent/v1/fetch/schemas'));
        if (cli.json) return printJson(list);
        printTable(
          ['id', 'builtin', 'fields', 'description'],
          list.data.map((s) => [s.id, s.builtin ? 'yes' : 'no', Object.keys(s.fields).join(', '), truncate(s.description ?? '', 50)]),
        );
      }),
    );

  schemas
    .command('put')
    .description('create or replace a schema of the workspace from a JSON definition (putFetchSchema)')
    .argument('<schema>', 'schema id (lower-case letters, digits, _ and -)')
    .requiredOption('--file <path>', 'the definition: {"description": ..., "fields": {...}}; - reads stdin')
    .action(
      action(async (cli, id, o) => {
        const stored = await unwrap(cli.client().PUT('/api/agent/v1/fetch/schemas/{id}', { params: { path: { id } }, body: definitionFrom(o.file) }));
        show(cli.json, stored);
      }),
    );

  idCommand(schemas, 'delete', 'delete a schema of the workspace (deleteFetchSchema)', { name: 'schema', description: 'schema id' }, (client, id) =>
    unwrap(client.DELETE('/api/agent/v1/fetch/schemas/{id}', { params: { path: { id } } })),
  );
}
