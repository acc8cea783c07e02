// The MCP tools' annotations, derived from each operation of the public description: what a
// host may infer about a tool (read-only, destructive, idempotent, reaching the outside world)
// must be what the REST operation behind it does.
import { describe, expect, it } from 'vitest';
import { importFromPathTool, mediaFromPathTool } from '../../clients/cli/src/commands/mcp.js';
import { buildToolCatalog, portable, toolAllowed } from '../../clients/mcp/catalog.js';
import { loadSpec } from '../../server/spec.js';

const spec = loadSpec('public');
const tools = new Map(buildToolCatalog(spec).map((t) => [t.name, t]));
const hints = (name: string) => {
  const t = tools.get(name);
  if (!t) throw new Error(`no tool ${name}`);
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = t.annotations;
  return { readOnlyHint, destructiveHint, idempotentHint, openWorldHint };
};

describe('MCP tool annotations', () => {
  it('reads are read-only, idempotent, not destructive, and stay inside the service', () => {
    for (const name of [
      'get_pipeline',
      'list_pipeline_posts',
      'get_artifact',
      'get_run',
      'diagnose_pipeline',
      'get_pipeline_inbox',
      'list_session_activity',
      'list_fetch_schemas',
    ]) {
      expect([name, hints(name)]).toEqual([name, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }]);
    }
  });

  it('DELETE and the transition that can discard are destructive; replacing with PUT is too', () => {
    expect(hints('delete_fetch_schema')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints('transition_artifact')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints('put_fetch_schema')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints('put_artifact_variant')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const name of ['create_pipeline_from_intent', 'draft_from_post', 'fetch_url', 'add_session_item']) {
      expect([name, hints(name).destructiveHint]).toEqual([name, false]);
    }
  });

  it('what cannot be undone or replaces what was there is destructive (x-destructive): publishing, connecting (it rotates credentials, replaces an export)', () => {
    expect(hints('publish_artifact')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints('connect_account')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    // The import's operation carries it too, for `cpa mcp`'s import_archive_from_path (the HTTP endpoint cannot take a file).
    expect((spec.paths as Record<string, Record<string, Record<string, unknown>>>)['/api/agent/v1/imports']!.post!['x-destructive']).toBe(true);
    expect(importFromPathTool({} as never, spec).annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(mediaFromPathTool({} as never, spec).annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });

  it('every tool, one by one: what its operation does (a new operation fails here until its line is added and checked)', () => {
    // R read-only, D destructive, I idempotent, O open-world ('-' where not). Publishing is D and O:
    // it posts under the person's name on a platform and cannot be undone. Recording a post made by
    // hand is D (x-destructive): the artifact becomes published for good, and a platform's address
    // recorded again replaces the first. Creating a token or a sign-in link only adds (not D), and
    // is for `admin` alone (listed only to a token that holds it).
    const expected: Record<string, string> = {
      list_pipelines: 'R-I-',
      get_pipeline: 'R-I-',
      create_pipeline_from_intent: '---O',
      diagnose_pipeline: 'R-I-',
      get_pipeline_inbox: 'R-I-',
      list_pipeline_posts: 'R-I-',
      list_pipeline_schedule: 'R-I-',
      set_pipeline_destinations: '-DI-',
      draft_from_post: '---O',
      list_artifacts: 'R-I-',
      get_artifact: 'R-I-',
      publish_artifact: '-D-O',
      mark_artifact_published: '-D--',
      unschedule_artifact: '-DI-',
      set_artifact_media: '-DI-',
      transition_artifact: '-D--',
      bulk_transition_artifacts: '-D--',
      bulk_schedule_artifacts: '-D-O',
      list_artifact_children: 'R-I-',
      put_artifact_variant: '-DI-',
      list_accounts: 'R-I-',
      connect_account: '-D-O',
      start_account_authorization: '---O',
      get_account_authorization: 'R-I-',
      check_account: '---O',
      get_sign_in_settings: 'R-I-',
      list_tokens: 'R-I-',
      get_current_token: 'R-I-',
      create_token: '----',
      revoke_token: '-DI-',
      rotate_token: '-D--',
      get_workspace: 'R-I-',
      update_workspace: '-D--',
      list_audit_events: 'R-I-',
      list_imports: 'R-I-',
      get_import: 'R-I-',
      get_media: 'R-I-',
      fetch_url: 'R-IO',
      list_fetch_schemas: 'R-I-',
      put_fetch_schema: '-DI-',
      delete_fetch_schema: '-DI-',
      list_runs: 'R-I-',
      get_run: 'R-I-',
      get_calendar: 'R-I-',
      list_session_activity: 'R-I-',
      add_session_item: '----',
      regenerate_variant: '---O',
      refresh_source: '---O',
      create_desk_sign_in_link: '----',
    };
    const code = (name: string) => {
      const h = hints(name);
      return `${h.readOnlyHint ? 'R' : '-'}${h.destructiveHint ? 'D' : '-'}${h.idempotentHint ? 'I' : '-'}${h.openWorldHint ? 'O' : '-'}`;
    };
    expect(Object.fromEntries([...tools.keys()].map((name) => [name, code(name)]))).toEqual(expected);
    // The rules behind the table, on every tool: a GET reads; a DELETE or PUT is destructive; a
    // read is never destructive; an operation marked so is.
    const paths = spec.paths as Record<string, Record<string, Record<string, unknown>>>;
    for (const t of tools.values()) {
      const op = paths[t.path]![t.method.toLowerCase()]!;
      const h = hints(t.name);
      if (t.method === 'GET') expect([t.name, h.readOnlyHint]).toEqual([t.name, true]);
      if (t.method === 'DELETE' || t.method === 'PUT') expect([t.name, h.destructiveHint]).toEqual([t.name, true]);
      if (h.readOnlyHint) expect([t.name, h.destructiveHint]).toEqual([t.name, false]);
      if (op['x-destructive'] === true) expect([t.name, h.destructiveHint]).toEqual([t.name, true]);
      expect([t.name, h.openWorldHint]).toEqual([t.name, op['x-reaches-upstream'] === true]);
    }
  });

  it("every tool carries its operation's x-required-scope, and is allowed only to a token holding it", () => {
    const paths = spec.paths as Record<string, Record<string, Record<string, unknown>>>;
    for (const t of [...tools.values(), importFromPathTool({} as never, spec), mediaFromPathTool({} as never, spec)]) {
      const op = Object.values(paths)
        .flatMap((item) => Object.values(item))
        .find((o) => o.operationId === t.operationId)!;
      expect([t.name, t.requiredScope]).toEqual([t.name, op['x-required-scope']]);
    }
    const publish = tools.get('publish_artifact')!;
    expect(toolAllowed(publish, ['read', 'draft'])).toBe(false);
    expect(toolAllowed(publish, ['read', 'publish'])).toBe(true);
    // Not known (the server could not say): listed, the REST API refuses.
    expect(toolAllowed(publish, null)).toBe(true);
    // A token describing itself needs no scope.
    expect(toolAllowed(tools.get('get_current_token')!, [])).toBe(true);
    expect(importFromPathTool({} as never, spec).requiredScope).toBe('draft');
  });

  it('fetch changes nothing on the service: read-only although a POST (x-read-only), and open-world', () => {
    expect(hints('fetch_url')).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
  });

  it('every tool schema is portable: no `type` list anywhere (hosts read one type per schema), nullable fields as anyOf', () => {
    const lists: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${at}/${i}`));
      else if (node && typeof node === 'object') {
        if (Array.isArray((node as { type?: unknown }).type)) lists.push(at);
        for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
      }
    };
    for (const t of tools.values()) {
      walk(t.inputSchema, `${t.name}/input`);
      walk(t.outputSchema, `${t.name}/output`);
    }
    expect(lists).toEqual([]);
    // A nullable string keeps its constraints on its string branch.
    expect(portable({ type: ['string', 'null'], maxLength: 5, description: 'd' })).toEqual({
      description: 'd',
      anyOf: [{ type: 'string', maxLength: 5 }, { type: 'null' }],
    });
    expect(portable({ type: ['string', 'null'], enum: ['a', null] })).toEqual({
      anyOf: [
        { type: 'string', enum: ['a'] },
        { type: 'null', enum: [null] },
      ],
    });
    // A field named `type` inside `properties` is a field, not a keyword.
    expect(portable({ type: 'object', properties: { type: { type: ['string', 'null'] } } })).toEqual({
      type: 'object',
      properties: { type: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
    });
  });

  it('publish, fetch, connect and every operation whose work reaches an upstream are open-world', () => {
    for (const name of [
      'publish_artifact',
      'fetch_url',
      'connect_account',
      'create_pipeline_from_intent',
      'draft_from_post',
      'regenerate_variant',
      'refresh_source',
    ]) {
      expect([name, hints(name).openWorldHint]).toEqual([name, true]);
    }
    for (const name of ['transition_artifact', 'put_fetch_schema', 'delete_fetch_schema', 'add_session_item', 'put_artifact_variant']) {
      expect([name, hints(name).openWorldHint]).toEqual([name, false]);
    }
  });

  it('a tool whose idempotency key is generated when omitted is not idempotent; PUT and DELETE are by their method', () => {
    for (const name of [
      'create_pipeline_from_intent',
      'draft_from_post',
      'publish_artifact',
      'transition_artifact',
      'connect_account',
      'add_session_item',
      'regenerate_variant',
      'refresh_source',
    ]) {
      expect([name, hints(name).idempotentHint]).toEqual([name, false]);
    }
    expect(hints('put_fetch_schema').idempotentHint).toBe(true);
    expect(hints('put_artifact_variant').idempotentHint).toBe(true);
    expect(hints('delete_fetch_schema').idempotentHint).toBe(true);
  });

  it('every operation that documents an upstream failure (502) is marked as reaching an upstream', () => {
    const paths = spec.paths as Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown>; 'x-reaches-upstream'?: boolean }>>;
    const missing: string[] = [];
    for (const item of Object.values(paths)) {
      for (const op of Object.values(item)) {
        if (op.operationId && op.responses?.['502'] && op['x-reaches-upstream'] !== true) missing.push(op.operationId);
      }
    }
    expect(missing).toEqual([]);
  });
});
