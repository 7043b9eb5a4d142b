import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHILD_ENTRIES } from '../../support/child-bundles.js';

const ROOT = join(import.meta.dirname, '../../..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : testFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

describe('bundled test children (test/support/child-bundles.ts)', () => {
  it('every child a test spawns through spawnTsx is bundled, and every bundled entry exists', () => {
    const spawned = new Set<string>();
    for (const file of testFiles(join(ROOT, 'test'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/spawnTsx\(\s*'([^']+)'/g)) spawned.add(match[1]!);
    }
    expect(spawned.size).toBeGreaterThanOrEqual(8);
    expect([...spawned].filter((entry) => !(CHILD_ENTRIES as readonly string[]).includes(entry))).toEqual([]);
    expect(CHILD_ENTRIES.filter((entry) => !existsSync(join(ROOT, entry)))).toEqual([]);
  });
});
