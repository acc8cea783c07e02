#!/usr/bin/env node
// The `cpa` launcher (the package's `bin`). It registers tsx's loader in this same process and
// runs the TypeScript entry point, so `npx cpa` works right after `npm ci` with no build step,
// and stdin/stdout/signals stay this process's own (which `cpa mcp` over stdio relies on).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
