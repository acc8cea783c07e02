// `cpa mcp`: the MCP server over stdio, for an agent host that starts it as a subprocess. The tools
// come from the server's own description (GET /openapi.json, so they match that server), and
// every call goes to its REST API with the configured token. Only MCP messages go to stdout.
import type { Command } from 'commander';
import { loadSpec } from '../../../../server/spec.js';
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

export function registerMcpCommand(program: Command) {
  program
    .command('mcp')
    .description('run the MCP (Model Context Protocol) server over stdio for a local agent host; tool calls use --base-url and the token')
    .action(
      action<[]>(async (cli) => {
        // No automatic retries: a rate-limited call is reported to the agent, which decides.
        const client = cli.client({ retries: 0 });
        // Loaded here, not at start: only this command needs the SDK.
        const [{ StdioServerTransport }, { buildToolCatalog }, { createMcpServer }] = await Promise.all([
          import('@modelcontextprotocol/sdk/server/stdio.js'),
          import('../../../../server/mcp/catalog.js'),
          import('../../../../server/mcp/server.js'),
        ]);
        const catalog = buildToolCatalog(await serverSpec(cli.settings.baseUrl));
        const server = createMcpServer({ catalog, client });
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
