// Fetch a public HTTPS page and structure it.
import { Option, type Command } from '@commander-js/extra-typings';
import { unwrap } from '../../../typescript/src/index.js';
import { action } from '../context.js';
import { printJson, printRecord, printText } from '../output.js';

export function registerFetchCommand(program: Command) {
  program
    .command('fetch')
    .description('fetch a public https:// page and structure it (fetchUrl)')
    .argument('<url>', 'a public https:// URL')
    .addOption(new Option('--mode <mode>', 'how to structure it (default auto)').choices(['markdown', 'css', 'llm', 'auto']))
    .option('--intent <text>', 'what to extract, in plain words (llm mode)')
    .option('--schema <id>', 'an extraction schema: article, product, recipe, or one of yours (css mode)')
    .action(
      action(async (cli, url, o) => {
        const body = { url, ...(o.mode ? { mode: o.mode } : {}), ...(o.intent ? { intent: o.intent } : {}), ...(o.schema ? { schema_id: o.schema } : {}) };
        const result = await unwrap(cli.client().POST('/api/agent/v1/fetch', { body }));
        if (cli.json) return printJson(result);
        printRecord({ ...result, links: `${result.links.length} links` }, ['markdown', 'fields']);
        if (result.fields) printRecord(result.fields);
        if (result.markdown) printText(result.markdown);
      }),
    );
}
