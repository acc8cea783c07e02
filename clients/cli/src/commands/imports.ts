// Imports of data exports: upload the archive as downloaded (a bar on stderr while it goes), and
// optionally start the pipeline that ingests it (`--intent`, with `--wait` to follow the ingest).
import { Option, type Command } from '@commander-js/extra-typings';
import { unwrap, UploadArgumentError, uploadImport } from '../../../typescript/src/index.js';
import { keyOption, printAccepted, waitOptions } from '../accepted.js';
import { action, idCommand } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { note, printTable, show } from '../output.js';
import type { Schemas } from '../../../typescript/src/index.js';
import { io } from '../io.js';

/**
 * What an import will import and what it leaves out, by reason: the rows of the table
 * `imports upload` prints (`imports` / `leaves out`, the kind, the count; only counts above zero).
 */
export function summaryRows(s: Schemas['Import']['summary']): Array<[string, string, number]> {
  const rows: Array<[string, string, number]> = [['imports', 'posts', s.posts]];
  for (const [visibility, n] of Object.entries(s.by_visibility)) if (n > 0) rows.push(['imports', `${visibility} posts`, n]);
  if (s.self_replies > 0) rows.push(['imports', 'replies to yourself (threads)', s.self_replies]);
  if (s.media > 0) rows.push(['imports', 'media', s.media]);
  const skipped = Object.entries(s.skipped).filter(([, n]) => n > 0);
  for (const [reason, n] of skipped) rows.push(['leaves out', reason.replaceAll('_', ' '), n]);
  if (!skipped.length) rows.push(['leaves out', 'nothing', 0]);
  return rows;
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/** An upload bar on stderr: one updating line on a terminal, a line per tenth otherwise. */
function uploadBar(quiet: boolean) {
  const tty = Boolean(io.stderr.isTTY);
  let lastTenth = -1;
  return {
    progress(sent: number, total: number) {
      if (quiet) return;
      const pct = total ? Math.floor((sent / total) * 100) : 100;
      if (tty) {
        const width = 30;
        const filled = Math.round((pct / 100) * width);
        io.stderr.write(`\r\x1b[2Kupload [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${pct}% ${mb(sent)} of ${mb(total)}`);
      } else if (Math.floor(pct / 10) > lastTenth) {
        lastTenth = Math.floor(pct / 10);
        io.stderr.write(`upload ${pct}% (${mb(sent)} of ${mb(total)})\n`);
      }
    },
    done() {
      if (tty && !quiet) io.stderr.write('\r\x1b[2Kupload done; the server has read the export\n');
    },
  };
}

export function registerImportCommands(program: Command) {
  const imports = program
    .command('imports')
    .description(
      'data exports (X, Mastodon, LinkedIn, Bluesky, WordPress, Instagram, Threads, Medium, Substack, Misskey, Pixelfed) uploaded as the platforms hand them out',
    );
  waitOptions(
    keyOption(
      imports
        .command('upload')
        .description('upload an export (ZIP, tar.gz or the bare file) as an archive account; --intent then starts the pipeline that ingests it (createImport)')
        .argument(
          '<file>',
          'the export as downloaded: X archive ZIP, Mastodon ZIP or tar.gz, LinkedIn ZIP, Bluesky .car, WordPress .xml, Instagram or Threads ZIP, Medium ZIP, Substack ZIP, Misskey notes .json, pixelfed-statuses.json, tweets.js, outbox.json, Shares.csv, posts_1.json',
        )
        .requiredOption('--handle <name>', 'the archive account to import into (a name you choose, e.g. ada-x-2024)')
        .addOption(
          new Option('--format <format>', 'insist on a format (detected otherwise)').choices([
            'x',
            'mastodon',
            'linkedin',
            'bluesky',
            'wordpress',
            'instagram',
            'threads',
            'medium',
            'substack',
            'misskey',
            'pixelfed',
          ]),
        )
        .option('--include-non-public', 'also import followers-only / protected / connections-only posts (never direct messages)')
        .option('--intent <text>', 'then create or resume the pipeline of this handle with this intent, which ingests the export')
        .option('--tone <text>', 'with --intent: the tone of the pipeline'),
    ),
  ).action(
    action(async (cli, file, o) => {
      if ((o.wait || o.tone) && !o.intent) throw new CliError('--wait and --tone go with --intent (the pipeline that ingests the export).', EXIT.usage);
      const bar = uploadBar(cli.json);
      let imported;
      try {
        imported = await uploadImport(cli.client({ retries: 0 }), {
          path: file,
          handle: o.handle,
          format: o.format,
          includeNonPublic: o.includeNonPublic,
          idempotencyKey: o.idempotencyKey,
          onProgress: (sent, total) => bar.progress(sent, total),
        });
      } catch (err) {
        if (err instanceof UploadArgumentError) throw new CliError(`Cannot upload ${file}: ${err.message}`, EXIT.usage);
        throw err;
      }
      bar.done();
      const s = imported.summary;
      const left = Object.entries(s.skipped)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${n} ${k.replace('_', ' ')}`)
        .join(', ');
      if (!o.intent) {
        show(cli.json, imported, ['summary', 'account']);
        if (!cli.json) {
          printTable(['', 'what', 'count'], summaryRows(s));
          note(`Ingest it: cpa pipelines create --handle ${imported.handle} --intent "…" --wait`);
        }
        return;
      }
      if (!cli.json) note(`${s.posts} posts to import; left out: ${left || 'nothing'}.`);
      const started = await unwrap(
        cli.client().POST('/api/agent/v1/pipelines/from-intent', {
          body: {
            handle: imported.handle,
            intent: o.intent,
            ...(o.tone ? { tone: o.tone } : {}),
            idempotency_key: `${cli.idempotencyKey}:pipeline`.slice(0, 128),
          },
        }),
      );
      await printAccepted(cli, { import_id: imported.id, ...started }, o);
    }),
  );
  idCommand(
    imports,
    'get',
    'show an import: format, size, what it imports and leaves out (getImport)',
    { name: 'import', description: 'import id' },
    (client, id) => unwrap(client.GET('/api/agent/v1/imports/{id}', { params: { path: { id } } })),
  );
}
