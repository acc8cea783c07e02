// The typed error a call was refused with (fails the test when the call succeeds or throws
// anything else): `expect((await refusal(call)).status).toBe(409)`.
import { ContentPipelineError } from '../../clients/typescript/src/index.js';

export async function refusal(p: Promise<unknown>): Promise<ContentPipelineError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ContentPipelineError) return err;
    throw err;
  }
  throw new Error('expected the call to be refused');
}
