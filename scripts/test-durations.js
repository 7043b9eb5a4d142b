#!/usr/bin/env node
// `npm run test:durations`: rewrites test/durations.json (wall seconds per test file, which
// test/support/duration-sequencer.ts starts longest first) from the JSON reports the last
// `npm test` wrote (.vitest-unit.json, .vitest-e2e.json). Files a report lacks keep their time.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const out = resolve(root, 'test/durations.json');
const durations = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
let read = 0;
for (const report of ['.vitest-unit.json', '.vitest-e2e.json']) {
  const path = resolve(root, report);
  if (!existsSync(path)) continue;
  for (const r of JSON.parse(readFileSync(path, 'utf8')).testResults ?? []) {
    if (typeof r.startTime !== 'number' || typeof r.endTime !== 'number') continue;
    durations[relative(root, r.name).split('\\').join('/')] = Math.round((r.endTime - r.startTime) / 100) / 10;
    read++;
  }
}
const kept = Object.fromEntries(
  Object.entries(durations)
    .filter(([file]) => existsSync(resolve(root, file)))
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(out, `${JSON.stringify(kept, null, 1)}\n`);
console.log(`test/durations.json: ${Object.keys(kept).length} files (${read} from the reports)`);
