// `cpa mcp`: the MCP server over stdio, for an agent host that starts it as a subprocess. The tools
// come from the server's own description (GET /openapi.json, so they match that server), and
// every call goes to its REST API with the configured token. Only MCP messages go to stdout.
import type { Command } from '@commander-js/extra-typings';
import { loadSpec } from '../../../../shared/spec.js';
import { operationFacts, type ToolDef } from '../../../mcp/catalog.js';
import { UploadArgumentError, uploadImport, uploadMedia, type ApiClient, type UploadImportOptions } from '../../../typescript/src/index.js';
import { action } from '../context.js';
import { note } from '../output.js';

/** The running server's public description, or this package's copy when the server cannot be reached. */
async function serverSpec(baseUrl: string): Promise<Record<string, unknown>> {
  try {
    const res = await fetch(`${baseUrl}/openapi.json`, { signal: AbortSignal.timeout(5000) });
    if (res.ok) return (await res.json()) as Record<string, unknown>;
    note(`cpa mcp: ${baseUrl}/openapi.json answered ${res.status}; using the bundled description`);
  } catch (err) {
    note(`cpa mcp: cannot reach ${baseUrl} (${(err as Error).message}); using the bundled description`);
  }
  return loadSpec('public');
}

/**
 * A tool that uploads a file from a path on this machine: the fields every such tool shares. Its
 * method, path, scope and annotations are its operation's in `spec` (catalog.ts `operationFacts`,
 * the rules of every tool: an import supersedes the previous one, `x-destructive`).
 */
function pathUploadTool(
  spec: Record<string, unknown>,
  t: {
    name: string;
    operationId: string;
    title: string;
    description: string[];
    properties: Record<string, unknown>;
    required: string[];
    run: ToolDef['run'];
  },
): ToolDef {
  const properties = t.properties as Record<string, { type: string; enum?: string[] }>;
  return {
    name: t.name,
    operationId: t.operationId,
    title: t.title,
    description: t.description.join('\n\n'),
    ...operationFacts(spec, t.operationId, t.title),
    inputSchema: {
      type: 'object',
      properties: {
        ...t.properties,
        idempotency_key: { type: 'string', minLength: 16, maxLength: 128, description: 'Reuse it to retry the same upload safely (generated when absent).' },
      },
      required: t.required,
      additionalProperties: false,
    },
    locations: {},
    idempotent: true,
    hasBody: true,
    // The host may not check arguments against inputSchema: checked here, each refusal naming its argument.
    run: (args) => {
      checkArguments(args, properties, t.required);
      return t.run!(args);
    },
  };
}

/** The arguments' types as the input schema says (the file is checked when it is opened: upload-file.ts). */
function checkArguments(args: Record<string, unknown>, properties: Record<string, { type: string; enum?: string[] }>, required: string[]) {
  for (const name of required) if (args[name] === undefined) throw new UploadArgumentError(name, `${name} is required.`);
  for (const [name, value] of Object.entries(args)) {
    const p = name === 'idempotency_key' ? { type: 'string' } : properties[name];
    if (!p) throw new UploadArgumentError(name, `${name} is not an argument of this tool.`);
    if (value !== undefined && typeof value !== p.type)
      throw new UploadArgumentError(name, `${name} must be a ${p.type}, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}.`);
    if (p.enum && !p.enum.includes(value as string)) throw new UploadArgumentError(name, `${name} must be one of ${p.enum.join(', ')}.`);
  }
}

/**
 * `import_archive_from_path`: an export on this machine (where `cpa mcp` runs), uploaded as
 * `POST /imports` does it. The HTTP MCP endpoint has no such tool: a server cannot read a path
 * on the agent's machine.
 */
export function importFromPathTool(client: ApiClient, spec: Record<string, unknown>): ToolDef {
  const title = 'Import a data export from a file on this machine';
  return pathUploadTool(spec, {
    name: 'import_archive_from_path',
    operationId: 'createImport',
    title,
    description: [
      `${title}.`,
      'Uploads the export exactly as downloaded (X archive ZIP, Mastodon ZIP or tar.gz, LinkedIn ZIP, Bluesky repository .car, WordPress .xml, Instagram ZIP, or the bare tweets.js, outbox.json, Shares.csv, posts_1.json) from `path` on the machine where `cpa mcp` runs, as the archive account `handle`. ' +
        'The answer counts the posts it will import and what it leaves out (direct messages never; followers-only posts unless include_non_public). ' +
        'Then call create_pipeline_from_intent with the same handle to ingest it, and follow the run with get_run (its progress counts the posts).',
      'REST: POST /api/agent/v1/imports (operation createImport), with the file as the body.',
    ],
    properties: {
      path: { type: 'string', minLength: 1, description: 'The export file, an absolute path on the machine where cpa mcp runs.' },
      handle: { type: 'string', minLength: 1, maxLength: 2048, description: 'The archive account to import into (a name you choose, e.g. ada-x-2024).' },
      format: {
        type: 'string',
        enum: ['x', 'mastodon', 'linkedin', 'bluesky', 'wordpress', 'instagram', 'threads', 'medium', 'substack', 'misskey', 'pixelfed'],
        description: 'Insist on a format (detected otherwise).',
      },
      include_non_public: {
        type: 'boolean',
        description: 'Also import followers-only / protected / connections-only posts. Direct messages are never imported.',
      },
    },
    required: ['path', 'handle'],
    run: (args) =>
      uploadImport(client, {
        path: args.path as string,
        handle: args.handle as string,
        format: args.format as UploadImportOptions['format'],
        includeNonPublic: args.include_non_public === true,
        idempotencyKey: typeof args.idempotency_key === 'string' ? args.idempotency_key : undefined,
      }),
  });
}

/**
 * `upload_media_from_path`: an image on this machine (where `cpa mcp` runs), uploaded as
 * `POST /media` does it; its id then goes into `set_artifact_media`.
 */
export function mediaFromPathTool(client: ApiClient, spec: Record<string, unknown>): ToolDef {
  const title = 'Upload an image from a file on this machine';
  return pathUploadTool(spec, {
    name: 'upload_media_from_path',
    operationId: 'uploadMedia',
    title,
    description: [
      `${title}.`,
      'Uploads a JPEG, PNG, WebP or GIF from `path` on the machine where `cpa mcp` runs, with its alt text (what the image shows, for people who cannot see it). ' +
        'The server checks the bytes (not the name), removes the metadata (GPS position included) and keeps the image 24 hours unless an artifact uses it. ' +
        "Then call set_artifact_media with the answer's id in the artifact's list.",
      'REST: POST /api/agent/v1/media (operation uploadMedia), with the file as the body.',
    ],
    properties: {
      path: { type: 'string', minLength: 1, description: 'The image file, an absolute path on the machine where cpa mcp runs.' },
      alt_text: {
        type: 'string',
        maxLength: 1000,
        description:
          'What the image shows, for people who cannot see it (up to 1,000 characters here; up to 5,000 with set_artifact_media). Accessibility is not optional: an image without alt text is flagged.',
      },
    },
    required: ['path'],
    run: (args) =>
      uploadMedia(client, {
        path: args.path as string,
        altText: typeof args.alt_text === 'string' ? args.alt_text : undefined,
        idempotencyKey: typeof args.idempotency_key === 'string' ? args.idempotency_key : undefined,
      }),
  });
}

export function registerMcpCommand(program: Command) {
  program
    .command('mcp')
    .description('run the MCP (Model Context Protocol) server over stdio for a local agent host; tool calls use --base-url and the token')
    .action(
      action(async (cli) => {
        // No automatic retries: a rate-limited call is reported to the agent, which decides.
        const client = cli.client({ retries: 0 });
        // Loaded here, not at start: only this command needs the SDK.
        const [{ StdioServerTransport }, { buildToolCatalog }, { createMcpServer, tokenScopes }] = await Promise.all([
          import('@modelcontextprotocol/sdk/server/stdio.js'),
          import('../../../mcp/catalog.js'),
          import('../../../mcp/server.js'),
        ]);
        const spec = await serverSpec(cli.settings.baseUrl);
        const catalog = [...buildToolCatalog(spec), importFromPathTool(client, spec), mediaFromPathTool(client, spec)];
        // Only the tools the token may call are listed (its scopes from GET /tokens/current), and a
        // destructive call asks the person first when the host supports elicitation.
        const server = createMcpServer({ catalog, client, scopes: tokenScopes(client) });
        const transport = new StdioServerTransport();
        const done = new Promise<void>((resolve) => {
          server.onclose = () => resolve();
          process.stdin.once('end', () => resolve());
        });
        await server.connect(transport);
        note(`cpa mcp: ${catalog.length} tools, REST API at ${cli.settings.baseUrl}`);
        await done;
        await server.close();
      }),
    );
}
