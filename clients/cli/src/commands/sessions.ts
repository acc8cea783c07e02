// The session bridges: activity, add an item, regenerate a variant, refresh a source.
import type { Command } from '@commander-js/extra-typings';
import { unwrap } from '../../../typescript/src/index.js';
import { keyOption, printAccepted, waitOptions } from '../accepted.js';
import { action } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { printJson, printTable, show, truncate } from '../output.js';

interface ItemFlags {
  note?: string;
  source?: string;
  artifact?: string;
  idempotencyKey?: string;
}

/** Exactly one of --note, --source, --artifact: it says the item's kind. */
function itemOf(o: ItemFlags) {
  const given = [o.note !== undefined && 'note', o.source !== undefined && 'source', o.artifact !== undefined && 'artifact'].filter(Boolean);
  if (given.length !== 1) throw new CliError('Give exactly one of --note <text>, --source <https-url>, --artifact <id>.', EXIT.usage);
  if (o.note !== undefined) return { kind: 'note' as const, text: o.note };
  if (o.source !== undefined) return { kind: 'source' as const, url: o.source };
  return { kind: 'artifact' as const, artifact_id: o.artifact! };
}

export function registerSessionCommands(program: Command) {
  const sessions = program.command('sessions').description('session bridges (the same operations as the MCP session tools)');

  sessions
    .command('activity')
    .description("latest activity rows across the workspace's sessions (listSessionActivity)")
    .option('--limit <n>', 'how many rows, 1 to 100 (default 20)')
    .action(
      action(async (cli, o) => {
        const limit = o.limit === undefined ? undefined : Number(o.limit);
        if (limit !== undefined && !Number.isInteger(limit)) throw new CliError('--limit must be a whole number (1 to 100).', EXIT.usage);
        const rows = await unwrap(cli.client().GET('/api/sessions/activity', { params: { query: { limit } } }));
        if (cli.json) return printJson(rows);
        printTable(
          ['when', 'session', 'kind', 'summary'],
          rows.data.map((r) => [r.created_at, r.session_id, r.kind, truncate(r.summary, 60)]),
        );
      }),
    );

  keyOption(
    sessions
      .command('add-item')
      .description('add a note, a source to track, or an artifact to a session; the session is created on first use (addSessionItem)')
      .argument('<session>', 'session id (you choose it)')
      .option('--note <text>', 'add a note')
      .option('--source <url>', 'track an https:// page as an upstream source')
      .option('--artifact <id>', 'attach an artifact (a variant)'),
  ).action(
    action(async (cli, sessionId, o) => {
      const body = { ...itemOf(o), idempotency_key: o.idempotencyKey };
      const item = await unwrap(cli.client().POST('/api/sessions/{sessionId}/items', { params: { path: { sessionId } }, body }));
      show(cli.json, item);
    }),
  );

  waitOptions(
    sessions
      .command('regenerate')
      .description('regenerate a variant, appending a variant round (regenerateVariant)')
      .argument('<session>', 'session id')
      .argument('<variant>', 'variant id (an artifact item of the session)'),
  ).action(
    action(async (cli, sessionId, variantId, o) => {
      const round = await unwrap(
        cli.client().POST('/api/sessions/{sessionId}/variants/{variantId}/regenerate', { params: { path: { sessionId, variantId } } }),
      );
      await printAccepted(cli, round, o);
    }),
  );

  waitOptions(
    sessions
      .command('refresh-source')
      .description('refetch an upstream source; a changed page emits webpage.ready (refreshSource)')
      .argument('<source>', 'source id (from a source item)'),
  ).action(
    action(async (cli, id, o) => {
      const accepted = await unwrap(cli.client().POST('/api/sessions/sources/{id}/refresh', { params: { path: { id } } }));
      await printAccepted(cli, accepted, o);
    }),
  );
}
