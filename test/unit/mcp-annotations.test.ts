// The MCP tools' annotations, derived from each operation of the public description: what a
// host may infer about a tool (read-only, destructive, idempotent, reaching the outside world)
// must be what the REST operation behind it does.
import { describe, expect, it } from 'vitest';
import { buildToolCatalog } from '../../clients/mcp/catalog.js';
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
    for (const name of ['create_pipeline_from_intent', 'draft_from_post', 'publish_artifact', 'connect_account', 'fetch_url', 'add_session_item']) {
      expect([name, hints(name).destructiveHint]).toEqual([name, false]);
    }
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
      'fetch_url',
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
