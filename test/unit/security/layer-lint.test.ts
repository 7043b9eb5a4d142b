/**
 * The layer lint (eslint-rules/layers.js with the table in eslint.config.js, docs/architecture.md §2)
 * refuses what it promises to: an upward import (the store reaching the importers), a type-only
 * upward import, a file in a folder the table does not know, and an import cycle between files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import forkline from '../../../eslint-rules/layers.js';

const ROOT = join(import.meta.dirname, '../../..');
// The probes are virtual files no tsconfig lists: the type-aware rules (which need the TypeScript
// project) are off here, so the parser does not refuse them before the layer rules run.
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/switch-exhaustiveness-check': 'off' },
  },
});

/** Messages of the forkline rules for `text` linted as if it were the file at `path`. */
async function layerMessages(path: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, path) });
  return result!.messages.filter((m) => m.ruleId?.startsWith('forkline/')).map((m) => m.message);
}

describe('forkline/layers', () => {
  it('refuses an upward import, also a type-only one', async () => {
    expect(await layerMessages('electron/store/probe.ts', "import { SessionImport } from '../import/session-import.js';\nexport const x = SessionImport;\n")).toEqual([
      expect.stringContaining('electron/store may not import electron/import'),
    ]);
    expect(await layerMessages('electron/session/probe.ts', "import type { Host } from '../host/host.js';\nexport type X = Host;\n")).toEqual([
      expect.stringContaining('electron/session may not import electron/host'),
    ]);
  }, 60_000);

  it('allows what the table lists', async () => {
    expect(
      await layerMessages(
        'electron/store/probe.ts',
        "import type { SessionEvent } from '../../shared/events.js';\nimport { Session } from '../session/session.js';\nexport type X = [SessionEvent, Session];\n",
      ),
    ).toEqual([]);
  }, 60_000);

  it('refuses a file in a folder the table does not know', async () => {
    expect(await layerMessages('electron/newfolder/probe.ts', 'export const x = 1;\n')).toEqual([expect.stringContaining('is in no layer')]);
  }, 60_000);
});

describe('forkline/no-cycle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'forkline-cycle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a cycle through a type import, and nothing without one', () => {
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = B | 1;\n");
    writeFileSync(join(dir, 'b.ts'), "import { c } from './c.js';\nimport type { A } from './a.js';\nexport type B = A | typeof c;\n");
    writeFileSync(join(dir, 'c.ts'), 'export const c = 1;\n');
    const linter = new Linter({ configType: 'flat', cwd: dir });
    const config: Linter.Config[] = [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser }, plugins: { forkline }, rules: { 'forkline/no-cycle': 'error' } }];
    const a = linter.verify("import type { B } from './b.js';\nexport type A = B | 1;\n", config, join(dir, 'a.ts'));
    expect(a.map((m) => m.message)).toEqual([expect.stringMatching(/import cycle: .*a\.ts -> .*b\.ts -> .*a\.ts/)]);
    const c = linter.verify('export const c = 1;\n', config, join(dir, 'c.ts'));
    expect(c).toEqual([]);
  });
});
