/**
 * No tool process outlives Forkline (docs/architecture.md §6; issue 10), with real processes: a stand-in Forkline
 * (test/support/supervised-child.ts) runs the real bash tool under the real ProcessSupervisor with a
 * command that leaves a background child, a `setsid` child and an orphaned `setsid` daemon behind;
 * whatever signal ends it (SIGKILL included), every one of them — and the watcher — is gone within
 * 2 s. In-process: a clean close ends supervised leftovers, and nothing unsupervised is touched.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPidAlive, processStart } from '../../../electron/platform/process-identity.js';
import { descendantsOf, processesWithEnvironment } from '../../../electron/platform/process-tree.js';
import { ProcessSupervisor, SUPERVISOR_MARKER, type SupervisedProcess } from '../../../electron/tools/process-supervisor.js';
import { spawnTsx, waitForFile } from '../../support/crash-harness.js';
import { tempDir } from '../../support/store-fixtures.js';

const tmp = tempDir('forkline-supervisor-');
afterAll(() => tmp.dispose());

/** Polls until none of `pids` is alive; returns how long that took (ms), or throws after `limitMs`. */
async function goneWithin(pids: readonly number[], limitMs: number): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const alive = pids.filter(isPidAlive);
    if (alive.length === 0) return Date.now() - t0;
    if (Date.now() - t0 > limitMs) throw new Error(`still alive after ${limitMs} ms: ${alive.join(', ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Ready {
  pid: number;
  watcherPid: number;
  marker: string;
  recorded: SupervisedProcess[];
  pids: { bg: number; setsid: number; daemon: number };
}

async function runAndKill(signal: NodeJS.Signals): Promise<void> {
  const work = tmp.file(`work-${signal}`);
  mkdirSync(work);
  const readyFile = join(work, 'ready.json');
  const child = spawnTsx('test/support/supervised-child.ts', [work, readyFile]);
  const ready = JSON.parse(await waitForFile(readyFile, child)) as Ready;
  const { bg, setsid, daemon } = ready.pids;
  const shell = ready.recorded[0]!;
  // The tool's shell was recorded with its group and start identity.
  expect(ready.recorded).toHaveLength(1);
  expect(shell.pgid).toBe(shell.pid);
  expect(shell.start).toBe(processStart(shell.pid));
  // The leftovers really left: the setsid ones have their own session, the daemon has no parent of ours.
  const tree = descendantsOf(ready.pid);
  expect(tree).toContain(bg);
  expect(tree).toContain(setsid);
  expect(tree).not.toContain(daemon);
  const marked = processesWithEnvironment(SUPERVISOR_MARKER, ready.marker);
  for (const pid of [shell.pid, bg, setsid, daemon]) expect(marked).toContain(pid);
  expect(marked).not.toContain(ready.watcherPid);

  child.child.kill(signal);
  const exit = await child.exited;
  expect(exit.signal).toBe(signal);
  const ms = await goneWithin([shell.pid, bg, setsid, daemon, ready.watcherPid], 2000);
  console.log(`${signal}: every tool process gone ${ms} ms after Forkline died`);
  expect(processesWithEnvironment(SUPERVISOR_MARKER, ready.marker)).toEqual([]);
}

describe('process supervisor (real processes)', () => {
  it('SIGKILL, SIGTERM or SIGHUP of Forkline: the tool tree, setsid escapees and the watcher are gone within 2 s', async () => {
    await Promise.all((['SIGKILL', 'SIGTERM', 'SIGHUP'] as const).map((s) => runAndKill(s)));
  }, 60_000);

  it('close() ends supervised leftovers (a nohup server, a setsid child) and leaves unsupervised processes alone', async () => {
    const supervisor = new ProcessSupervisor();
    const seen: SupervisedProcess[] = [];
    const outsider = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const child = supervisor.spawnFunction((p) => seen.push(p))('/bin/bash', ['-c', 'nohup sleep 30 >/dev/null 2>&1 & echo $!; setsid sleep 30 >/dev/null 2>&1 & echo $!'], {
        stdio: ['ignore', 'pipe', 'ignore'],
        detached: true,
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      await new Promise((r) => child.once('close', r));
      const pids = out.trim().split('\n').map(Number);
      expect(pids).toHaveLength(2);
      expect(seen.map((p) => p.pid)).toEqual([child.pid]);
      for (const pid of pids) expect(isPidAlive(pid)).toBe(true);
      const watcher = supervisor.watcherPid!;
      await supervisor.close();
      await goneWithin([...pids, watcher], 2000);
      expect(isPidAlive(outsider.pid!)).toBe(true);
      expect(() => supervisor.spawn('true', [], {})).toThrow(/disposed/);
    } finally {
      outsider.kill('SIGKILL');
    }
  }, 30_000);
});
