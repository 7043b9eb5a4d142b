/**
 * `forkline export ID --bundle FILE --with-files` and `forkline import FILE` through the built CLI
 * (issue 26): the tree arrives in an empty data folder with its lineage, the bundle holds neither
 * the configured key nor the env secret, and a damaged bundle is refused with exit 2, naming the
 * part, importing nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSourceTree, CONFIGURED_KEY, ENV_SECRET, EXPORT_ENV, type SourceTree } from '../bundle/bundle-support.js';
import { forkline } from '../../support/cli-process.js';

let base: string;
let source: SourceTree;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'forkline-cli-bundle-'));
  source = await buildSourceTree(base);
  await source.stored.close();
}, 60_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('forkline export --bundle / import', () => {
  it('exports the tree with its files and imports it into an empty data folder', async () => {
    const file = join(base, 'cli.bundle');
    const exported = await forkline(['export', source.root.slice(0, 8), '--bundle', file, '--with-files'], { dataDir: source.dataDir, env: EXPORT_ENV });
    expect(exported.stderr).toMatch(/4 session\(s\), \d+ events, \d+ checkpoint\(s\)/);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/redacted: \d+ \(.*configured-key.*\)/);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(CONFIGURED_KEY);
    expect(text).not.toContain(ENV_SECRET);

    const target = join(base, 'cli-target');
    const imported = await forkline(['import', file], { dataDir: target });
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('4 session(s)');
    expect(imported.stdout).toContain(`${source.forks[2]}`);
    expect(imported.stdout).toContain(`fork of ${source.forks[0]}`);
    const ls = await forkline(['ls', '--json'], { dataDir: target });
    const listed = JSON.parse(ls.stdout) as { id: string }[];
    expect(listed.map((s) => s.id).sort()).toEqual([source.root, ...source.forks].sort());
  }, 60_000);

  it('refuses a damaged bundle with exit 2, naming the part, and imports nothing', async () => {
    const file = join(base, 'cli.bundle');
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('fork one goes on'));
    lines[at] = lines[at]!.replace('fork one goes on', 'fork one goes ON');
    const damaged = join(base, 'cli-damaged.bundle');
    writeFileSync(damaged, lines.join('\n'));
    const target = join(base, 'cli-target-damaged');
    const result = await forkline(['import', damaged], { dataDir: target });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`part session/${source.forks[0]} is damaged`);
    expect(result.stderr).toContain('IMPORT_BUNDLE_DAMAGED');
    const ls = await forkline(['ls', '--json'], { dataDir: target });
    expect(JSON.parse(ls.stdout)).toEqual([]);
  }, 60_000);
});
