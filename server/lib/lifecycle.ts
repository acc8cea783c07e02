// Things to stop, in order, when the process shuts down (streams, workers, the database).
export class Lifecycle {
  private readonly closers: Array<{ name: string; close: () => Promise<void> | void }> = [];
  private closing = false;

  onClose(name: string, close: () => Promise<void> | void) {
    this.closers.push({ name, close });
  }

  get isClosing() {
    return this.closing;
  }

  /** Runs every closer (last registered first); a failing closer does not stop the others. */
  async close(log?: (msg: string, err?: unknown) => void) {
    this.closing = true;
    for (const c of [...this.closers].reverse()) {
      try {
        await c.close();
      } catch (err) {
        log?.(`closing ${c.name} failed`, err);
      }
    }
  }
}
