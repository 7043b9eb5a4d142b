/**
 * A stand-in Forkline process for the process-supervisor test (run with `node --import tsx`): runs
 * the real bash tool under a real ProcessSupervisor with a command that leaves children behind —
 * one in the tool's process group, one that called `setsid`, and a `setsid` daemon whose parent
 * already exited — then waits to be killed.
 * Usage: supervised-child.ts <workDir> <readyFile>
 * Writes <readyFile>: {"pid", "watcherPid", "marker", "recorded": [{pid, pgid, start}], "pids": {bg, setsid, daemon}}.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBashTool } from '../../electron/tools/builtin/bash.js';
import { InMemoryFileReadTracker } from '../../electron/tools/file-read-tracker.js';
import { ProcessSupervisor, type SupervisedProcess } from '../../electron/tools/process-supervisor.js';
import { LEFT_BEHIND_SCRIPT } from './left-behind.js';

const [work, ready] = process.argv.slice(2) as [string, string];
const supervisor = new ProcessSupervisor();
const recorded: SupervisedProcess[] = [];
const bash = createBashTool();
void bash.execute(
  { command: LEFT_BEHIND_SCRIPT, timeout_ms: 60_000 },
  { cwd: work, sessionId: 's', callId: 'c', signal: new AbortController().signal, files: new InMemoryFileReadTracker(), spawn: supervisor.spawnFunction((p) => recorded.push(p)) },
);
const read = (name: string) => {
  try {
    return Number(readFileSync(join(work, name), 'utf8').trim());
  } catch {
    return undefined;
  }
};
const timer = setInterval(() => {
  try {
    readFileSync(join(work, 'started.txt'));
  } catch {
    return;
  }
  clearInterval(timer);
  writeFileSync(
    ready,
    JSON.stringify({
      pid: process.pid,
      watcherPid: supervisor.watcherPid,
      marker: supervisor.markerValue,
      recorded,
      pids: { bg: read('bg.pid'), setsid: read('setsid.pid'), daemon: read('daemon.pid') },
    }),
  );
  setInterval(() => undefined, 1000);
}, 10);
