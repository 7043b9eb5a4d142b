#!/usr/bin/env node
// `npm run bench`: runs every bench/*.bench.ts in its own Node process (through tsx, with
// --expose-gc for the heap measurement), collects the `BENCH {json}` lines they print and shows
// one table. Every figure is a ratio to a baseline measured in the same run (docs/architecture.md §13).
// Benchmarks report; they never fail the build (exit code 0 unless a benchmark crashes).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const only = process.argv[2];
// docs/architecture.md §13 order first, then anything else alphabetically.
const ORDER = ['append', 'open', 'fork', 'heap'];
const rank = (f) => {
  const i = ORDER.findIndex((name) => f.startsWith(`${name}.`));
  return i < 0 ? ORDER.length : i;
};
const files = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts') && (!only || f.includes(only)))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

console.log(`Forkline benchmarks — Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown cpu'})\n`);
const results = [];
let crashed = 0;
for (const file of files) {
  process.stdout.write(`running ${file} …\n`);
  const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join('bench', file)], { cwd: root, encoding: 'utf8', env: process.env });
  const lines = (run.stdout ?? '').split('\n').filter((l) => l.startsWith('BENCH '));
  if (run.status !== 0 || lines.length === 0) {
    crashed++;
    console.log(`  ${file} failed (exit ${run.status}):\n${run.stderr}`);
    continue;
  }
  for (const line of lines) results.push(JSON.parse(line.slice(6)));
}

const fmt = (n) => (Math.abs(n) >= 1000 ? Math.round(n).toLocaleString('en-US') : String(n));
const rows = [['measure', 'ours', 'baseline (same run)', 'ratio', 'goal', 'met']];
for (const r of results) {
  rows.push([r.name, `${fmt(r.ours)} ${r.unit}`, `${fmt(r.baseline)} ${r.unit} — ${r.baselineName}`, `${r.ratio.toFixed(2)}×`, r.goal, r.met ? 'yes' : 'NO']);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
console.log('');
console.log(line(rows[0]));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows.slice(1)) console.log(line(row));
console.log('');
for (const r of results) if (r.detail) console.log(`- ${r.name}: ${r.detail}`);
const missed = results.filter((r) => !r.met).length;
console.log(`\n${results.length - missed} of ${results.length} goals met${crashed ? `, ${crashed} benchmark(s) crashed` : ''}`);
process.exit(crashed > 0 ? 1 : 0);
