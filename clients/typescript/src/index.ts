// The typed TypeScript client for the Content Pipeline API, built on openapi-fetch with the types
// generated from the description. It behaves like stripe-node: bearer auth; idempotency keys
// generated when the caller gives none (idempotency.ts); retries with exponential backoff and
// jitter when sending twice is safe, and 429 after Retry-After (retry.ts); item-level
// pagination (pagination.ts); typed errors built from the error envelope (errors.ts).
// This file only re-exports: every module imports what it needs from the module that defines it
// (client.ts for createApiClient, unwrap and the types), so no import runs back to here.
export * from './client.js';
export * from './errors.js';
export * from './retry.js';
export * from './idempotency.js';
export * from './pagination.js';
export * from './operations.js';
export * from './runs.js';
export * from './events.js';
export * from './imports.js';
export * from './media.js';
export * from './upload-file.js';
