// ESLint: typescript-eslint's strict type-checked rules (the checks that need the type checker:
// floating and misused promises, `any` leaking out of JSON.parse and untyped libraries, template
// literals that would print "[object Object]", deprecated APIs), less the rules that on this code
// only produce noise, each with why. Formatting is not ESLint's job: Biome does it (biome.json).
// `npm run lint:eslint`; docs/contributing.md ("Lint and format") says how to run it on one file.
// @ts-check
import js from '@eslint/js';
import { fileURLToPath } from 'node:url';
import { defineConfig, globalIgnores, includeIgnoreFile } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // What git ignores (node_modules, build/, the CLI's dist/, data/, .venv-contract/, .tools/, …).
  includeIgnoreFile(fileURLToPath(new URL('.gitignore', import.meta.url)), '.gitignore'),
  // Generated code (openapi-typescript, prisma-kysely, the CLI's launcher bundle) and fixtures
  // that reproduce third-party files byte for byte.
  globalIgnores(['generated/**', 'server/store/tables.ts', 'clients/cli/bin/compiled.js', 'test/fixtures/**'], 'generated code and fixtures'),
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The code writes `!` where a value is present for a reason the compiler cannot follow
      // (Map.get after has, a regex group that matched, the first row of a non-empty list); 517
      // findings, each a rewrite into a throw or a cast that says the same thing less plainly.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // tsconfig has noUncheckedIndexedAccess off, so every `xs[i]!` (287 of its 309 findings) is
      // "unnecessary" to it, while it marks exactly the reads that can miss; its autofix would
      // delete them. The rest are casts to the type an expression already has: harmless.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Same cause: with noUncheckedIndexedAccess off, and with values cast from parsed JSON,
      // request bodies and upstream answers (types that say more than the runtime guarantees), it
      // calls the runtime guards "unnecessary" (`rows[0] ?? null`, `(err as Error)?.message`).
      // Following it would remove real checks.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Same family: `Boolean(process.stderr.isTTY)` is typed boolean but undefined off a
      // terminal, and values read through a cast (`Number(r.count)`, `String(b.status ?? '')`)
      // are what the runtime says, not the cast. A conversion too many costs nothing; one too
      // few is a bug.
      '@typescript-eslint/no-unnecessary-type-conversion': 'off',
      // An async function without await is how the code satisfies a Promise-returning interface
      // (Handler, the MCP SDK's request handlers, the blob store) and turns a throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // Kysely's expression builder is destructured in callbacks by design (its documented
      // `({ eb, not, exists }) => …`), and the objects the code passes around carry closures,
      // not `this`-bound methods: all 19 findings were of these two kinds, none a bug.
      '@typescript-eslint/unbound-method': 'off',
      // Express's req and res are IncomingMessage and ServerResponse at run time (Express sets
      // their prototypes) but are typed as interfaces, so passing them to Node's APIs is flagged:
      // both findings were that.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // `json<T>()` (server/outbound, the adapters' upstream answers) is the Fetch-like typed read
      // the adapters rely on; the rule would have it return unknown and every caller cast.
      '@typescript-eslint/no-unnecessary-type-parameters': 'off',
      // Numbers and booleans print as expected in a template; what stays flagged is what does not
      // (objects, unknown, any, null/undefined, never).
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `return next(err)` (Express middleware) and `if (cli.json) return printJson(x);` (the CLI)
      // are the code's "answer and stop"; the rule would split each of its 200 findings in two
      // lines. A void result used as a value is already a type error where it matters.
      '@typescript-eslint/no-confusing-void-expression': 'off',
      // `[...text].length` counts code points on purpose (the platforms' limits are in code
      // points, not UTF-16 units); spreading a Promise, a Map or a class instance stays an error.
      '@typescript-eslint/no-misused-spread': ['error', { allow: ['string'] }],
      // `let worker` in server/main.ts is read by a closure before it is assigned, on purpose.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `_`-prefixed parameters are there to keep a position (Express's (err, req, res, next)).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests read untyped JSON answers and use vitest's asymmetric matchers (`expect.any(String)`,
    // `expect.stringMatching(…)`), which vitest types as any: the no-unsafe-* rules flag both,
    // while the test's own expect() is the runtime check that a wrong shape fails.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain JavaScript (the scripts run by npm before tsx, the CLI's launcher): no type information.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
