// Source posts: list (one page, or every page with --all) and start a draft from one.
import { Option, type Command } from '@commander-js/extra-typings';
import { unwrap, type Schemas } from '../../../typescript/src/index.js';
import { TARGETS } from './artifacts.js';
import { keyOption, printAccepted, waitOptions } from '../accepted.js';
import { action } from '../context.js';
import { uploadFile } from './media.js';
import { CliError, EXIT } from '../errors.js';
import { limitOf } from '../options.js';
import { note, printJson, printTable, truncate } from '../output.js';

type Post = Schemas['SourcePost'];

/** `-`, or how many attachments and how many lack alt text: `3 (1 no alt)`. */
const mediaCell = (media: Post['media']) => {
  if (!media.length) return '-';
  const bare = media.filter((m) => !m.alt_text).length;
  return bare ? `${media.length} (${bare} no alt)` : String(media.length);
};

function printPosts(posts: Post[]) {
  printTable(
    ['id', 'published', 'likes', 'reposts', 'replies', 'quotes', 'draft', 'media', 'text'],
    posts.map((p) => [
      p.id,
      p.published_at.slice(0, 16).replace('T', ' '),
      p.metrics.likes,
      p.metrics.reposts,
      p.metrics.replies,
      p.metrics.quotes,
      p.has_artifact ? 'yes' : 'no',
      mediaCell(p.media),
      truncate(p.text, 48),
    ]),
  );
}

export function registerPostCommands(program: Command) {
  const posts = program.command('posts').description("a pipeline's source posts");

  posts
    .command('list')
    .description('list source posts with engagement metrics, newest first (listPipelinePosts)')
    .argument('<pipeline>', 'pipeline id')
    .option('--has-artifact', 'only posts with at least one draft')
    .option('--no-has-artifact', 'only posts without a draft')
    .option('--limit <n>', 'page size, 1 to 100 (default 20)')
    .option('--cursor <cursor>', 'start at this page (the next_cursor of a previous page)')
    .option('--all', 'follow next_cursor to the last page (progress on stderr)')
    .action(
      action(async (cli, id, o) => {
        const client = cli.client();
        const init = { params: { path: { id }, query: { limit: limitOf(o.limit), cursor: o.cursor, has_artifact: o.hasArtifact } } };
        if (!o.all) {
          const page = await unwrap(client.GET('/api/agent/v1/pipelines/{id}/posts', init));
          if (cli.json) return printJson(page);
          printPosts(page.data);
          if (page.next_cursor) note(`More: cpa posts list ${id} --cursor ${page.next_cursor}   (or --all)`);
          return;
        }
        const all: Post[] = [];
        let n = 0;
        for await (const page of client.paginate('/api/agent/v1/pipelines/{id}/posts', init).pages()) {
          all.push(...page.data);
          note(`page ${++n}: ${all.length} posts so far`);
        }
        if (cli.json) printJson({ data: all, next_cursor: null });
        else printPosts(all);
      }),
    );

  waitOptions(
    keyOption(
      posts
        .command('draft')
        .description(
          'queue a drafting run that writes a new artifact from a source post: a first draft, a re-draft (--parent) or a brief (--with) (draftFromPost)',
        )
        .argument('<post>', 'source post id')
        .option('--style-reference <text>', 'a sample of text whose style the draft should follow')
        .option('--parent <artifact>', 're-draft from this artifact (its genealogy records it)')
        .option('--with <posts...>', 'make a brief: other posts of the same pipeline to draw on (up to 9)')
        .addOption(new Option('--target <platforms...>', "make a variant for each platform (default: the pipeline's own, or the parent's)").choices(TARGETS))
        .option(
          '--media <file>',
          'an image to add after the media the draft carries (repeatable; uploaded first)',
          (v: string, all: string[]) => [...all, v],
          [],
        )
        .option('--alt <text>', 'the alt text of the --media image at the same position (repeatable)', (v: string, all: string[]) => [...all, v], []),
    ),
  ).action(
    action(async (cli, id, o) => {
      if (o.alt.length > o.media.length)
        throw new CliError('Each --alt goes with the --media image at the same position; there are more --alt than --media.', EXIT.usage);
      // Uploaded before the draft is asked for: a file that cannot be read or is not an image stops here.
      const uploads = [];
      for (const [i, file] of o.media.entries()) uploads.push(await uploadFile(cli.client({ retries: 0 }), file, o.alt[i]));
      const body = {
        ...(o.styleReference ? { style_reference: o.styleReference } : {}),
        ...(o.parent ? { parent_artifact_id: o.parent } : {}),
        ...(o.with?.length ? { additional_post_ids: o.with } : {}),
        ...(o.target?.length ? { targets: [...new Set(o.target)] } : {}),
        idempotency_key: o.idempotencyKey,
      };
      const result = await unwrap(cli.client().POST('/api/agent/v1/posts/{id}/draft', { params: { path: { id } }, body }));
      if (uploads.length) {
        // The reserved artifact already carries its sources' media: the uploads go after them.
        const client = cli.client();
        const a = await unwrap(client.GET('/api/agent/v1/artifacts/{id}', { params: { path: { id: result.artifact_id } } }));
        const media = [...(a.media ?? []).map((m) => ({ id: m.id })), ...uploads.map((u) => ({ id: u.id }))];
        await unwrap(client.PUT('/api/agent/v1/artifacts/{id}/media', { params: { path: { id: result.artifact_id } }, body: { media } }));
        note(`added ${uploads.length} image${uploads.length === 1 ? '' : 's'} to ${result.artifact_id}`);
      }
      await printAccepted(cli, result, o);
    }),
  );
}
