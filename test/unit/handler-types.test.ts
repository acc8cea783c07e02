// The handlers' types enforce the contract's rules (server/http/typed.ts, generated/operations.ts):
// each `@ts-expect-error` below is a mistake the compiler must refuse. Should a rule stop holding
// (a caller on a public operation, a misnamed header, a missing handler …), the directive is
// unused and `npm run lint:ts` fails; vitest runs the same handlers to show the right ones work.
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/api.js';
import type { Caller } from '../../server/services/context.js';
import { uploadReply, type Handler, type HandlerRequest, type HandlersOf } from '../../server/http/typed.js';
import { SCOPES } from '../../server/services/tokens.js';

const caller: Caller = { workspaceId: 'ws_types', tokenId: 'tok_types', scopes: SCOPES };
const artifact = { id: 'ar_1' } as unknown as components['schemas']['Artifact'];

// The caller is a Caller on a bearer operation (no check needed) …
const getArtifact: Handler<'getArtifact'> = async (req) => {
  const ws: string = req.caller.workspaceId;
  return { status: 200, body: { ...artifact, id: `${ws}:${req.path.id}` } };
};
// … and absent on a public one.
const getHealth: Handler<'getHealth'> = async (req) => {
  // @ts-expect-error getHealth is public: no caller
  const _ws: string = req.caller.workspaceId;
  return { status: 200, body: { status: 'ok' } };
};

// A status the operation does not answer.
// @ts-expect-error getArtifact answers 200 (and errors, which are thrown), never 201
const wrongStatus: Handler<'getArtifact'> = async () => ({ status: 201, body: artifact });

const media = { id: 'med_1' } as unknown as components['schemas']['MediaUpload'];
// A header the contract declares, spelled as it does, with a value of its enum …
const replayed: Handler<'uploadMedia'> = async () => ({ status: 200, body: media, headers: { 'Idempotent-Replayed': 'true' } });
// @ts-expect-error a misnamed header
const misnamed: Handler<'uploadMedia'> = async () => ({ status: 200, body: media, headers: { 'Idempotent-Replay': 'true' } });
// @ts-expect-error a value outside the header's enum
const badValue: Handler<'uploadMedia'> = async () => ({ status: 200, body: media, headers: { 'Idempotent-Replayed': 'yes' } });
// @ts-expect-error no header is declared on getHealth's 200 (X-Request-Id and RateLimit are the pipeline's)
const undeclared: Handler<'getHealth'> = async () => ({ status: 200, body: { status: 'ok' }, headers: { 'X-Request-Id': 'req_1' } });

// A tag's slice: every operation of the tag, and no other.
// @ts-expect-error getImport is missing from the Imports slice
const missing = { createImport: async () => uploadReply({ status: 201 as const, body: {} as never }) } satisfies HandlersOf<'Imports'>;
const extra = {
  getHealth,
  // @ts-expect-error getArtifact is not an operation of the Health tag
  getArtifact,
} satisfies HandlersOf<'Health'>;

const request = <K extends 'getArtifact' | 'getHealth'>(operationId: K, path: object, who: Caller | undefined) =>
  ({
    operationId,
    path,
    query: {},
    body: undefined,
    headers: {},
    rawBody: undefined,
    bodyStream: (async function* () {})(),
    caller: who,
    log: console,
  }) as unknown as HandlerRequest<K>;

describe('handler types', () => {
  it('type the caller, the statuses and the headers as the contract declares them (checked by tsc; the valid ones run)', async () => {
    expect(await getArtifact(request('getArtifact', { id: 'ar_2' }, caller))).toMatchObject({ status: 200, body: { id: 'ws_types:ar_2' } });
    expect(await replayed({} as never)).toMatchObject({ headers: { 'Idempotent-Replayed': 'true' } });
    expect(uploadReply({ status: 200, body: media })).toEqual({ status: 200, body: media, headers: { 'Idempotent-Replayed': 'true' } });
    expect(uploadReply({ status: 201, body: media })).toEqual({ status: 201, body: media });
    // the refused ones exist only to be refused by the compiler
    expect([getHealth, wrongStatus, misnamed, badValue, undeclared, missing, extra].every((x) => x !== undefined)).toBe(true);
  });
});
