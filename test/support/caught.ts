// The error a promise rejects with, when it is of the expected class (anything else, or no
// rejection at all, fails the test). For asserting on typed errors: ContentPipelineError from the
// client, OutboundError from the outbound client, and the like.
export async function caught<E extends Error>(p: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await p;
  } catch (err) {
    if (err instanceof type) return err;
    throw err;
  }
  throw new Error(`expected a ${type.name}, but the promise resolved`);
}
