// The MCP server: the catalog's tools, a few resources and a prompt, over any transport (the
// Streamable HTTP route at /api/mcp, or stdio through `cpa mcp`). Every tool call and resource
// read is a REST call through the typed client with the caller's token, so that authentication,
// workspace scoping, rate limiting, idempotency and validation are the REST API's own. Being a
// client of the REST API, it lives under clients/: the server mounts it (server/mcp/http.ts).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { callOperation, ContentPipelineError, errorReport, unwrap, UploadArgumentError, type ApiClient } from '../typescript/src/index.js';
import { checkArguments, ToolArgumentError, toolAllowed, toRequest, type ToolDef } from './catalog.js';
import { compilePathTemplate } from '../../shared/openapi.js';

export interface McpServerOptions {
  catalog: ToolDef[];
  /** The typed client, already carrying the caller's token (it generates the idempotency keys left out). */
  client: ApiClient;
  version?: string;
  /** REST calls (tool calls, resource reads, prompts) of this server open at once; MCP_MAX_CONCURRENT_CALLS unless given. */
  maxConcurrentCalls?: number;
  /** When set (one HTTP request's server), no call starts at or after `at` (ms, as `now` counts). */
  deadline?: { at: number; now: () => number };
  /**
   * The scopes of the caller's token (`tokenScopes`): only the tools it may call are listed, and a
   * call of another is refused without a request. `null` (not known: the server could not say)
   * lists every tool and leaves the refusal to the REST API. Unset: every tool.
   */
  scopes?: () => Promise<readonly string[] | null>;
}

/**
 * The scopes of the client's token, from `GET /tokens/current` (any valid token may ask), asked
 * once and remembered (a token's scopes never change); `null` while the server cannot say (not
 * reachable, or older than the operation), asked again next time.
 */
export function tokenScopes(client: ApiClient): () => Promise<readonly string[] | null> {
  let known: readonly string[] | undefined;
  return async () => {
    if (known) return known;
    try {
      known = (await unwrap(client.GET('/api/agent/v1/tokens/current'))).scopes;
      return known;
    } catch {
      return null;
    }
  };
}

/** A call of a tool beyond the token's scopes: refused here, as the REST API would (403, request_scope), without a request. */
export class ScopeRefused extends Error {
  constructor(tool: ToolDef, scopes: readonly string[]) {
    super(
      `This token lacks the scope '${tool.requiredScope}' that ${tool.name} (${tool.operationId}) requires; its scopes are: ${scopes.join(', ') || 'none'}. ` +
        'The tool is not listed for this token. Ask the person who runs the workspace for a token with that scope (POST /tokens, `cpa tokens create`).',
    );
  }
}

/** A destructive call the person did not confirm when asked (elicitation): nothing was done. */
export class NotConfirmed extends Error {
  constructor(tool: ToolDef, why: 'decline' | 'cancel' | 'unanswered') {
    const what = why === 'decline' ? 'declined' : why === 'cancel' ? 'dismissed' : 'could not answer';
    super(`The person ${what} the confirmation of ${tool.name}: nothing was done. Do not call it again unless they ask for it.`);
  }
}

/** How long a person has to answer a confirmation before the call is dropped (nothing done). */
export const CONFIRM_TIMEOUT_MS = 10 * 60_000;

const lowerFirst = (text: string) => `${text.charAt(0).toLowerCase()}${text.slice(1)}`;

/** What a confirmation shows: the tool, what it does, and the call's arguments (the idempotency key left out). */
export function confirmationMessage(tool: ToolDef, args: Record<string, unknown>): string {
  const shown = Object.fromEntries(Object.entries(args).filter(([k]) => k !== 'idempotency_key'));
  const json = JSON.stringify(shown, null, 2);
  const effects = [
    'It deletes or replaces what was there, or does what cannot be undone.',
    tool.annotations.openWorldHint ? 'It reaches outside this service (a platform, a web page or a model).' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return `An agent asks to ${lowerFirst(tool.title)} (${tool.name}). ${effects}\n\n${json.length > 2000 ? `${json.slice(0, 1999)}…` : json}\n\nAllow it?`;
}

/**
 * A JSON-RPC batch may carry 100 messages, which the SDK starts all at once: one request's calls
 * run a few at a time instead, so that a batch cannot take more of the server than a few
 * requests in parallel would.
 */
export const MCP_MAX_CONCURRENT_CALLS = 4;

/** Runs tasks at most `max` at a time, in the order they came; refuses to start one past the deadline. */
function callGate(max: number, deadline: McpServerOptions['deadline']) {
  let open = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (open >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else open += 1;
    try {
      if (deadline && deadline.now() >= deadline.at) throw new CallNotStarted();
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else open -= 1;
    }
  };
}

/** A call the request's time budget left no room for: it was not made. */
export class CallNotStarted extends Error {
  constructor() {
    super('This MCP request ran out of its time budget before this call could start; the call was not made. Send it again (in a smaller batch).');
  }
}

const INSTRUCTIONS = `Content Pipeline turns a social handle's posts into publishable drafts.
Typical flow: create_pipeline_from_intent (handle + intent) → get_run / get_pipeline until the ingest run succeeded → list_pipeline_posts → draft_from_post → get_run → get_artifact → publish_artifact.
Lost an id (a restart, a new conversation)? list_pipelines, list_artifacts (state: ["review", "ready"] is what waits for a person), list_runs, list_accounts, list_imports and get_calendar (what is scheduled between two times) find your work again; every list pages with next_cursor.
get_pipeline_inbox lists what needs attention; diagnose_pipeline explains problems. Every error result carries error.code, error.message and, when there is an obvious next step, error.suggested_action and error.suggested_endpoint: follow them.
Mutating tools take an optional idempotency_key: pass a UUID and reuse it when you retry the same call.`;

/** A `fetch` that failed before any HTTP answer (connection refused or reset, DNS, TLS): undici's `TypeError('fetch failed', { cause })`. */
export function isNetworkFailure(err: unknown): boolean {
  return err instanceof TypeError && err.message === 'fetch failed' && (err as { cause?: unknown }).cause !== undefined;
}

/** A local file the tool was asked to read could not be (`cpa mcp`'s upload from a path). */
const isFileError = (err: unknown): err is NodeJS.ErrnoException =>
  err instanceof Error &&
  typeof (err as NodeJS.ErrnoException).code === 'string' &&
  typeof (err as NodeJS.ErrnoException).syscall === 'string' &&
  'path' in err;

/**
 * What a failed call reports: the error envelope, the HTTP status and the request id. The REST
 * API's own errors as it answered them; a call the budget left no room for, or a REST API that
 * could not be reached, as `backend_unavailable` to retry; a local file that cannot be read as
 * `validation_failed` naming `path`; arguments the tool does not take (an unknown name, a
 * mistyped path or query value) as `validation_failed` naming the argument; anything else is a bug of this server (`internal_error`).
 */
export function errorBody(err: unknown) {
  if (err instanceof ContentPipelineError) return errorReport(err);
  const none = { status: null, request_id: null };
  if (err instanceof CallNotStarted) return { error: { code: 'backend_unavailable', message: err.message, suggested_action: 'retry_later' }, ...none };
  if (isNetworkFailure(err)) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const message = `The REST API could not be reached: ${cause?.code ?? cause?.message ?? 'fetch failed'}`;
    return { error: { code: 'backend_unavailable', message, suggested_action: 'retry_later' }, ...none };
  }
  if (err instanceof ScopeRefused) return { error: { code: 'forbidden', message: err.message, suggested_action: 'request_scope' }, ...none };
  if (err instanceof NotConfirmed) return { error: { code: 'not_confirmed', message: err.message }, ...none };
  if (err instanceof ToolArgumentError) return { error: { code: 'validation_failed', message: err.message }, ...none };
  // The argument's name and what is wrong with it; never the file's content.
  if (err instanceof UploadArgumentError) return { error: { code: 'validation_failed', message: err.message }, ...none };
  if (isFileError(err)) return { error: { code: 'validation_failed', message: `path cannot be read: ${err.message}` }, ...none };
  const message = `The MCP server failed on its side (a bug; please report it): ${(err as Error)?.message ?? String(err)}`;
  return { error: { code: 'internal_error', message }, ...none };
}

/** A failed call as a tool result (no structuredContent: hosts would check it against the output schema). */
export function toolError(err: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(errorBody(err), null, 2) }] };
}

/** A URI template of a resource, read through one tool. */
interface ResourceDef {
  name: string;
  title: string;
  description: string;
  uriTemplate: string;
  tool: string;
  /** The tool argument the template's variable fills. */
  arg: string;
}

const RESOURCES: ResourceDef[] = [
  {
    name: 'pipeline-inbox',
    title: "A pipeline's inbox",
    description: 'What needs the agent’s attention in a pipeline: anomalies, drafts in review, posts without a draft. Most urgent first.',
    uriTemplate: 'cpa://pipelines/{pipeline_id}/inbox',
    tool: 'get_pipeline_inbox',
    arg: 'id',
  },
  {
    name: 'pipeline',
    title: 'A pipeline',
    description: 'A pipeline with its counts and its most recent run.',
    uriTemplate: 'cpa://pipelines/{pipeline_id}',
    tool: 'get_pipeline',
    arg: 'id',
  },
  {
    name: 'artifact',
    title: 'An artifact',
    description: 'A draft: its text, state and genealogy.',
    uriTemplate: 'cpa://artifacts/{artifact_id}',
    tool: 'get_artifact',
    arg: 'id',
  },
  { name: 'run', title: 'A run', description: 'One run of long-running work and its status.', uriTemplate: 'cpa://runs/{run_id}', tool: 'get_run', arg: 'id' },
];

/** Items of `resources/list` per call (one REST page). */
const BROWSE_PAGE = 50;

const oneLine = (text: string, n: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
};

/** The lists `resources/list` walks through, in order, and how an item of each is shown. */
const BROWSED: Array<{ tool: string; resource: (item: Record<string, unknown>) => Resource }> = [
  {
    tool: 'list_pipelines',
    resource: (p) => {
      const last = p.last_run as { kind: string; status: string } | null;
      return {
        uri: `cpa://pipelines/${String(p.id)}`,
        name: String(p.id),
        title: `${String(p.handle)}: ${oneLine(String(p.intent), 80)}`,
        description: `Pipeline: ${String(p.post_count)} posts, ${String(p.artifact_count)} artifacts${last ? `; last run ${last.kind} ${last.status}` : ''}.`,
        mimeType: 'application/json',
        annotations: { lastModified: String(p.updated_at) },
      };
    },
  },
  {
    tool: 'list_artifacts',
    resource: (a) => ({
      uri: `cpa://artifacts/${String(a.id)}`,
      name: String(a.id),
      title: oneLine(String(a.text), 80) || '(a draft being written)',
      description: `Artifact ${String(a.state)} in pipeline ${String(a.pipeline_id)}.`,
      mimeType: 'application/json',
      annotations: { lastModified: String(a.updated_at) },
    }),
  },
];

/** The position a `resources/list` cursor carries: which list, and the REST cursor in it. */
function browseCursor(cursor: string): { list: string; cursor: string | null } {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { list?: unknown; cursor?: unknown };
    if (typeof parsed.list === 'string' && (typeof parsed.cursor === 'string' || parsed.cursor === null)) return { list: parsed.list, cursor: parsed.cursor };
  } catch {
    // not JSON: refused below
  }
  throw new McpError(ErrorCode.InvalidParams, 'The cursor is not valid for resources/list. Start again without a cursor.');
}

/** A resource URI template's parameters are ids: letters, digits, `_` and `-`. */
const templateRegex = (t: string) => compilePathTemplate(t, '[A-Za-z0-9_-]+').regex;

/**
 * Builds a server for one caller (its client carries the caller's token). The SDK's low-level
 * `Server`, which it marks deprecated in favour of `McpServer` "except for advanced use cases":
 * this is one, the tools being derived at run time from the OpenAPI description with its JSON
 * Schemas as they are, where `McpServer` wants a Zod schema per tool.
 */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- see above
export function createMcpServer(opts: McpServerOptions): Server {
  const tools = new Map(opts.catalog.map((t) => [t.name, t]));
  const resources = RESOURCES.filter((r) => tools.has(r.tool));
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- see createMcpServer's comment
  const server = new Server(
    { name: 'content-pipeline', title: 'Content Pipeline', version: opts.version ?? '1.0.0' },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );

  const gate = callGate(opts.maxConcurrentCalls ?? MCP_MAX_CONCURRENT_CALLS, opts.deadline);
  const call = (tool: ToolDef, args: Record<string, unknown>) => gate(() => (tool.run ? tool.run(args) : callOperation(opts.client, toRequest(tool, args))));
  const scopes = opts.scopes ?? (async () => null);
  /** The tools the caller's token may call. */
  const listed = async () => {
    const held = await scopes();
    return opts.catalog.filter((t) => toolAllowed(t, held));
  };
  const readable = async () => {
    const held = await scopes();
    return resources.filter((r) => toolAllowed(tools.get(r.tool)!, held));
  };
  /** Refuses a tool beyond the token's scopes (ScopeRefused), before anything else. */
  const mayCall = async (tool: ToolDef) => {
    const held = await scopes();
    if (!toolAllowed(tool, held)) throw new ScopeRefused(tool, held ?? []);
  };

  /**
   * A destructive tool (annotated so) asks the person first when the client can be asked
   * (elicitation): only an accepted form with `confirm: true` lets the call through. A client
   * without the capability calls as before; its host reads the annotations.
   */
  async function confirm(tool: ToolDef, args: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    if (!tool.annotations.destructiveHint || !server.getClientCapabilities()?.elicitation?.form) return;
    // Arguments the request could not carry are refused before a person is asked about them.
    if (!tool.run) checkArguments(tool, args);
    let answer: Awaited<ReturnType<typeof server.elicitInput>>;
    try {
      answer = await server.elicitInput(
        {
          mode: 'form',
          message: confirmationMessage(tool, args),
          requestedSchema: {
            type: 'object',
            properties: {
              confirm: {
                type: 'boolean',
                title: `Yes, ${lowerFirst(tool.title)}`,
                description: 'Leave it unticked, or decline, and nothing is done.',
                default: false,
              },
            },
            required: ['confirm'],
          },
        },
        { signal, timeout: CONFIRM_TIMEOUT_MS },
      );
    } catch {
      throw new NotConfirmed(tool, 'unanswered');
    }
    if (answer.action !== 'accept') throw new NotConfirmed(tool, answer.action);
    if (answer.content?.confirm !== true) throw new NotConfirmed(tool, 'decline');
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await listed()).map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
      annotations: t.annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    const tool = tools.get(req.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`);
    try {
      const args = (req.params.arguments ?? {}) as Record<string, unknown>;
      await mayCall(tool);
      await confirm(tool, args, extra.signal);
      const data = await call(tool, args);
      const text = data === undefined ? 'Done (the operation answered without a body).' : JSON.stringify(data, null, 2);
      const structured =
        tool.outputSchema && data && typeof data === 'object' && !Array.isArray(data) ? { structuredContent: data as Record<string, unknown> } : {};
      return { content: [{ type: 'text', text }], ...structured };
    } catch (err) {
      return toolError(err);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (req) => browse(req.params?.cursor));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    // Only those the token may read (every template is read through a `read` tool).
    resourceTemplates: (await readable()).map((r) => ({
      name: r.name,
      title: r.title,
      description: r.description,
      uriTemplate: r.uriTemplate,
      mimeType: 'application/json',
    })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const uri = req.params.uri;
    for (const r of resources) {
      const m = templateRegex(r.uriTemplate).exec(uri);
      if (!m) continue;
      try {
        await mayCall(tools.get(r.tool)!);
        const data = await call(tools.get(r.tool)!, { [r.arg]: m[1] });
        return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data, null, 2) }] };
      } catch (err) {
        const e = errorBody(err);
        // -32002 is MCP's "resource not found"; a read beyond the token's scopes is the caller's request to change.
        const code = e.error.code === 'not_found' ? -32002 : e.error.code === 'forbidden' ? ErrorCode.InvalidRequest : ErrorCode.InternalError;
        throw new McpError(code, `${e.error.code}: ${e.error.message}`, e);
      }
    }
    throw new McpError(-32002, `Unknown resource: ${uri}`);
  });

  /**
   * `resources/list`: the workspace's pipelines, then its artifacts, newest first, a page at a
   * time (list_pipelines, then list_artifacts); the MCP cursor says which list and carries the
   * REST cursor. A host browses them and reads each through its template.
   */
  async function browse(cursor: string | undefined) {
    const at = cursor === undefined ? { list: BROWSED[0]!.tool, cursor: null } : browseCursor(cursor);
    const index = BROWSED.findIndex((b) => b.tool === at.list);
    const spec = BROWSED[index];
    const tool = spec ? tools.get(spec.tool) : undefined;
    if (!spec || !tool) throw new McpError(ErrorCode.InvalidParams, 'The cursor is not valid for resources/list. Start again without a cursor.');
    // A token that may not read has nothing to browse.
    if (!toolAllowed(tool, await scopes())) return { resources: [] };
    let page: { data: Array<Record<string, unknown>>; next_cursor: string | null };
    try {
      page = (await call(tool, { limit: BROWSE_PAGE, ...(at.cursor ? { cursor: at.cursor } : {}) })) as typeof page;
    } catch (err) {
      const e = errorBody(err);
      const code = e.error.code === 'bad_request' ? ErrorCode.InvalidParams : ErrorCode.InternalError;
      throw new McpError(code, `${e.error.code}: ${e.error.message}`, e);
    }
    const next = page.next_cursor
      ? { list: spec.tool, cursor: page.next_cursor }
      : BROWSED[index + 1]
        ? { list: BROWSED[index + 1]!.tool, cursor: null }
        : null;
    return {
      resources: page.data.map(spec.resource),
      ...(next ? { nextCursor: Buffer.from(JSON.stringify(next), 'utf8').toString('base64url') } : {}),
    };
  }

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [
      {
        name: 'triage_inbox',
        title: "Work through a pipeline's inbox",
        description: 'Reads the inbox of a pipeline and asks the model to handle each item with the tools, most urgent first.',
        arguments: [{ name: 'pipeline_id', description: 'The pipeline whose inbox to work through.', required: true }],
      },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    if (req.params.name !== 'triage_inbox') throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}`);
    const pipelineId = req.params.arguments?.pipeline_id;
    if (!pipelineId) throw new McpError(ErrorCode.InvalidParams, 'pipeline_id is required');
    const uri = `cpa://pipelines/${pipelineId}/inbox`;
    let inbox: string;
    try {
      inbox = JSON.stringify(await call(tools.get('get_pipeline_inbox')!, { id: pipelineId }), null, 2);
    } catch (err) {
      inbox = JSON.stringify(errorBody(err), null, 2);
    }
    return {
      description: `Triage of pipeline ${pipelineId}`,
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text:
              `Work through the inbox of pipeline ${pipelineId} (attached), most urgent first. ` +
              'For a flagged_anomaly, call diagnose_pipeline and follow each issue’s suggested_action. ' +
              'For a draft_in_review, read it with get_artifact and publish it with publish_artifact only if it is ready to go. ' +
              'For a source_without_artifact, start a draft with draft_from_post and follow its run with get_run. ' +
              'Report what you did and what still needs a human.',
          },
        },
        { role: 'user', content: { type: 'resource', resource: { uri, mimeType: 'application/json', text: inbox } } },
      ],
    };
  });
  return server;
}
