// Time and identifiers come through these small functions so that tests can pin them.
import { randomBytes, randomUUID } from 'node:crypto';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface IdSource {
  /** An opaque id: the prefix, an underscore, and 16 random hex characters. */
  id(prefix: string): string;
  uuid(): string;
}

export const randomIds: IdSource = {
  id: (prefix) => `${prefix}_${randomBytes(8).toString('hex')}`,
  uuid: () => randomUUID(),
};
