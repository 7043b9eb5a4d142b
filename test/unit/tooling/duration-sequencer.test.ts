/**
 * The test-file order (test/support/duration-sequencer.ts): files with no recorded time first,
 * then longest recorded first, ties by size; read from a real durations file in a temp root.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { DurationSequencer } from '../../support/duration-sequencer.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function rootWith(files: Record<string, number>, durations: string | undefined): { root: string; specs: TestSpecification[] } {
  const root = mkdtempSync(join(tmpdir(), 'forkline-sequencer-'));
  roots.push(root);
  mkdirSync(join(root, 'test'), { recursive: true });
  if (durations !== undefined) writeFileSync(join(root, 'test/durations.json'), durations);
  // Only `moduleId` is read from a specification (the rest is vitest's and unused by sort).
  const specs = Object.entries(files).map(([name, bytes]) => {
    writeFileSync(join(root, 'test', name), 'x'.repeat(bytes));
    return { moduleId: join(root, 'test', name) } as unknown as TestSpecification;
  });
  return { root, specs };
}

const order = async (root: string, specs: TestSpecification[]): Promise<string[]> =>
  (await new DurationSequencer({ config: { root } } as unknown as Vitest).sort(specs)).map((s) => s.moduleId.slice(root.length + 'test/'.length + 1));

it('starts unrecorded files first, then the longest recorded, ties by size', async () => {
  const { root, specs } = rootWith(
    { 'a.test.ts': 10, 'b.test.ts': 30, 'new-small.test.ts': 1, 'new-big.test.ts': 500, 'c.test.ts': 20, 'd.test.ts': 99 },
    JSON.stringify({ 'test/a.test.ts': 43, 'test/b.test.ts': 2.5, 'test/c.test.ts': 90, 'test/d.test.ts': 2.5 }),
  );
  expect(await order(root, specs)).toEqual(['new-big.test.ts', 'new-small.test.ts', 'c.test.ts', 'a.test.ts', 'd.test.ts', 'b.test.ts']);
});

it('orders by size alone when the durations file is missing or not JSON', async () => {
  for (const durations of [undefined, '{ not json']) {
    const { root, specs } = rootWith({ 'a.test.ts': 10, 'b.test.ts': 300, 'c.test.ts': 20 }, durations);
    expect(await order(root, specs)).toEqual(['b.test.ts', 'c.test.ts', 'a.test.ts']);
  }
});
