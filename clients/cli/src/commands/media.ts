// Images: upload one (`media upload FILE --alt TEXT`), read one; and the media table every
// artifact view prints under its record.
import type { Command } from '@commander-js/extra-typings';
import { unwrap, UploadArgumentError, uploadMedia, type ApiClient, type Schemas } from '../../../typescript/src/index.js';
import { keyOption } from '../accepted.js';
import { action } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { note, printTable, show, truncate } from '../output.js';

/** Uploads a file; a missing file, a directory, a device or a FIFO is a usage error, not a crash. */
export async function uploadFile(client: ApiClient, file: string, altText: string | undefined, idempotencyKey?: string): Promise<Schemas['MediaUpload']> {
  try {
    return await uploadMedia(client, { path: file, altText, idempotencyKey });
  } catch (err) {
    if (err instanceof UploadArgumentError) throw new CliError(`Cannot upload ${file}: ${err.message}`, EXIT.usage);
    throw err;
  }
}

/** An artifact's media as a table (position, id, type, size, alt text), and its media issues on stderr. */
export function printMedia(a: Schemas['Artifact']) {
  const media = a.media ?? [];
  if (!media.length) return;
  printTable(
    ['#', 'id', 'type', 'size', 'alt text'],
    media.map((m, i) => [i + 1, m.id, m.type, m.width && m.height ? `${m.width}×${m.height}` : '-', m.alt_text ? truncate(m.alt_text, 60) : 'MISSING']),
  );
  for (const issue of a.media_issues ?? []) note(`${issue.code}: ${issue.message}`);
}

export function registerMediaCommands(program: Command) {
  const media = program.command('media').description('images for drafts: upload (checked, metadata removed, stored 24 h unless a draft uses it)');

  keyOption(
    media
      .command('upload')
      .description('upload a JPEG, PNG, WebP or GIF image (uploadMedia); attach it with `cpa artifacts media` or `cpa posts draft --media`')
      .argument('<file>', 'the image file')
      .option('--alt <text>', 'the alt text: what the image shows, for people who cannot see it'),
  ).action(
    action(async (cli, file, o) => {
      const made = await uploadFile(cli.client({ retries: 0 }), file, o.alt, o.idempotencyKey);
      show(cli.json, made);
      if (!cli.json && !made.alt_text) note('No alt text: add one with --alt, or when attaching it (cpa artifacts media ... --alt ID=TEXT).');
    }),
  );

  media
    .command('get')
    .description('show an uploaded image: format, size, alt text, whether a draft uses it (getMedia)')
    .argument('<media>', 'upload id')
    .action(
      action(async (cli, id) => {
        show(cli.json, await unwrap(cli.client().GET('/api/agent/v1/media/{id}', { params: { path: { id } } })));
      }),
    );
}
