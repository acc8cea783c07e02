// The typed error a call was refused with (fails the test when the call succeeds or throws
// anything else): `expect((await refusal(call)).status).toBe(409)`.
import { ContentPipelineError } from '../../clients/typescript/src/index.js';
import { caught } from './caught.js';

export const refusal = (p: Promise<unknown>): Promise<ContentPipelineError> => caught(p, ContentPipelineError);
