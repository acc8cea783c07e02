// The part of the built-in `Temporal` (ECMAScript, shipped by Node 26) that the service uses.
// TypeScript 5.9 has no declarations for it yet; these follow the proposal's API.
declare namespace Temporal {
  interface Instant {
    readonly epochMilliseconds: number;
    toString(): string;
  }
  interface ZonedDateTime {
    readonly offset: string;
    readonly timeZoneId: string;
    readonly epochMilliseconds: number;
    toInstant(): Instant;
    toPlainDateTime(): PlainDateTime;
  }
  interface PlainDateTime {
    toZonedDateTime(timeZone: string, options?: { disambiguation?: 'compatible' | 'earlier' | 'later' | 'reject' }): ZonedDateTime;
    equals(other: PlainDateTime): boolean;
    toString(): string;
  }
  const PlainDateTime: {
    from(item: string, options?: { overflow?: 'constrain' | 'reject' }): PlainDateTime;
  };
  const Instant: {
    from(item: string): Instant;
  };
  const ZonedDateTime: {
    from(item: string, options?: { disambiguation?: 'compatible' | 'earlier' | 'later' | 'reject'; offset?: 'use' | 'ignore' | 'prefer' | 'reject' }): ZonedDateTime;
  };
}
