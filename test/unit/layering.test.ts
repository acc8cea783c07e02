// The layers import in one direction: clients/ (the typed client, cpa, the MCP server) never
// imports server/, and shared/ imports neither. The one seam from cpa to the server is the
// package's `#cpa/operator-commands` import (package.json "imports"), which the CLI loads for
// `cpa admin` without naming the server. Each import of every source file is read with the
// TypeScript compiler's own pre-processor (static, dynamic and type-only imports, re-exports).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const packageImports = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { imports?: Record<string, string> }).imports ?? {};
/** The package's own `#…` imports that a client may use, and what each one stands for. */
const SEAMS: Record<string, string> = { '#cpa/operator-commands': "the server's operator console, under `cpa admin`" };

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|mts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .filter((f) => !f.split(path.sep).some((part) => part === 'node_modules' || part === 'dist'));
}

/** Every module specifier a file imports, with the project-relative file it names (null for a package). */
function importsOf(file: string, source = readFileSync(path.join(root, file), 'utf8')): Array<{ specifier: string; target: string | null }> {
  return ts.preProcessFile(source, true, true).importedFiles.map(({ fileName }) => ({
    specifier: fileName,
    target: fileName.startsWith('.') ? path.relative(root, path.resolve(path.dirname(path.join(root, file)), fileName)) : null,
  }));
}

const under = (target: string | null, dir: string) => target !== null && (target === dir || target.startsWith(`${dir}${path.sep}`));

describe('the layers', () => {
  it("clients/ imports nothing from server/, and only the declared seams among the package's own imports", () => {
    const files = sourceFiles('clients');
    expect(files.length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const file of files) {
      for (const { specifier, target } of importsOf(file)) {
        if (under(target, 'server')) wrong.push(`${file} imports ${specifier}`);
        if (specifier.startsWith('#') && !(specifier in SEAMS)) wrong.push(`${file} imports ${specifier}, which is not a declared seam`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('shared/ imports neither server/ nor clients/', () => {
    const wrong = sourceFiles('shared').flatMap((file) =>
      importsOf(file)
        .filter(({ target }) => under(target, 'server') || under(target, 'clients'))
        .map(({ specifier }) => `${file} imports ${specifier}`),
    );
    expect(wrong).toEqual([]);
  });

  it('each seam is declared by the package and leads where it says', () => {
    for (const seam of Object.keys(SEAMS)) expect(packageImports[seam], seam).toMatch(/^\.\/server\/operator\//);
  });

  it('catches an import of server/ in every form it can take', () => {
    const file = path.join('clients', 'cli', 'src', 'commands', 'example.ts');
    const forms = [
      "import { loadConfig } from '../../../../server/config.js';",
      "import type { Db } from '../../../../server/store/database.js';",
      "const m = await import('../../../../server/store/database.js');",
      "export { TOKEN_FILE } from '../../../../server/lib/token-file.js';",
    ];
    for (const form of forms)
      expect(
        importsOf(file, form).some(({ target }) => under(target, 'server')),
        form,
      ).toBe(true);
    expect(importsOf(file, "import { loadSpec } from '../../../../shared/spec.js';").some(({ target }) => under(target, 'server'))).toBe(false);
  });
});
