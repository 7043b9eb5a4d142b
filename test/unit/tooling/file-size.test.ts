/**
 * Issue 24: no source file in electron/, shared/ or renderer/ grows past 500 lines without saying
 * why at its top. The rule: a `Size:` line in the file's leading comment (its first 40 lines), so
 * the next engineer reads the reason (or splits the file) before adding to it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const LIMIT = 500;

/** Tracked source files under the three product folders, by `git ls-files` (what a clean clone holds). */
function productFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', 'electron', 'shared', 'renderer'], { cwd: root, encoding: 'utf8' });
  return out.split('\0').filter((f) => /\.(ts|tsx|js|mjs|cjs|css)$/.test(f));
}

/** The file's lines over the limit that do not explain their size in the first 40 lines. */
export function unexplainedLongFiles(files: readonly string[], read: (file: string) => string): string[] {
  return files.filter((file) => {
    const lines = read(file).split('\n');
    if (lines.length <= LIMIT) return false;
    return !lines.slice(0, 40).some((line) => /^\s*(\*|\/\/|\/\*)?\s*Size:\s*\S/.test(line));
  });
}

describe('file size rule (issue 24)', () => {
  it('finds the product files (the check would pass vacuously on an empty list)', () => {
    const files = productFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('electron/agent/agent.ts');
  });

  it('every file over 500 lines says why at its top', () => {
    const offenders = unexplainedLongFiles(productFiles(), (f) => readFileSync(join(root, f), 'utf8'));
    expect(offenders, `add a "Size: …" line to the top comment of, or split: ${offenders.join(', ')}`).toEqual([]);
  });

  it('the rule itself: a long file without a Size line is reported, one with it is not', () => {
    const long = (head: string): string => `${head}\n${'x;\n'.repeat(LIMIT + 1)}`;
    const texts: Record<string, string> = {
      'a.ts': long('/**\n * Thing.\n */'),
      'b.ts': long('/**\n * Thing.\n *\n * Size: over 500 lines because of reasons.\n */'),
      'c.css': long('/* Shell.\n   Size: over 500 lines because of reasons. */'),
      'd.ts': 'short;\n',
    };
    expect(unexplainedLongFiles(Object.keys(texts), (f) => texts[f]!)).toEqual(['a.ts']);
  });
});
