/**
 * The order test files start in: longest first, by the wall time each took in a recorded run
 * (test/durations.json, seconds per file path relative to the repository; `npm run test:durations`
 * rewrites it from the last run's JSON reports). A file with no recorded time starts before all
 * others (as vitest's own order does: a new file may be slow), then larger files first.
 *
 * Why: vitest's default order on a clean clone (no results cache) is by project name, then file
 * size. That started a 43 s integration file 319 s into a 362 s lane and a 22 s unit file at 364 s,
 * so the lane's last ~40 s ran one or two files on four workers. Longest-first over all projects
 * (the LPT rule for scheduling jobs on parallel machines) leaves only short files for the tail.
 * It changes when files start, never what runs: the sharding stays vitest's.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Recorded wall seconds per file; empty when the file is missing or unreadable (order is then by size). */
function recordedSeconds(root: string): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(root, 'test/durations.json'), 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, number>) : {};
  } catch {
    return {};
  }
}

/** vitest `sequence.sequencer`: longest recorded file first across every project. */
export class DurationSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = recordedSeconds(root);
    const key = (f: TestSpecification): { known: boolean; seconds: number; size: number } => {
      const path = relative(root, f.moduleId).split('\\').join('/');
      const s = seconds[path];
      let size = 0;
      try {
        size = statSync(f.moduleId).size;
      } catch {
        // gone since it was listed: vitest reports it
      }
      return { known: typeof s === 'number', seconds: typeof s === 'number' ? s : 0, size };
    };
    const keyed = files.map((f) => ({ f, k: key(f) }));
    keyed.sort((a, b) => (a.k.known !== b.k.known ? (a.k.known ? 1 : -1) : b.k.seconds - a.k.seconds || b.k.size - a.k.size));
    return Promise.resolve(keyed.map(({ f }) => f));
  }
}
