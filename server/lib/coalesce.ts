// A single-flight runner: at most one run of the task at a time, and a trigger that arrives
// during a run asks for exactly one more run after it (however many triggers came). The hub's
// outbox reads, the delivery worker's and the job worker's queue looks are all woken far more
// often than they need to run.
export class Coalesced {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly task: () => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {}

  trigger(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.task()
      .then(() => undefined, this.onError)
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.trigger();
        }
      });
  }

  /** Settles when no run is in progress. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }
}
