/**
 * Processes as a tree, from `/proc` (Linux; man 5 proc) — for crash recovery (end what a crashed
 * tool left running, when provably ours) and for tests that check no tool process survived.
 * Elsewhere the listing is empty and only the recorded process and its group are handled.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { isPidAlive, procStatFields, processLiveness, type ProcessIdentity } from './process-identity.js';

/** One process from `/proc/<pid>/stat`. */
export interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  /** Process group id. */
  readonly pgid: number;
  /** Session id (a `setsid` call gives a process its own). */
  readonly sid: number;
  readonly state: string;
}

/** Every process visible in `/proc` (zombies excluded); `[]` where there is no `/proc`. */
export function listProcesses(): ProcessEntry[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const fields = procStatFields(Number(name));
    if (!fields || fields[0] === 'Z') continue;
    out.push({ pid: Number(name), state: fields[0]!, ppid: Number(fields[1]), pgid: Number(fields[2]), sid: Number(fields[3]) });
  }
  return out;
}

/** Pids of every living descendant of `pid` (children, their children, …), by parent links. */
export function descendantsOf(pid: number, processes: readonly ProcessEntry[] = listProcesses()): number[] {
  const children = new Map<number, number[]>();
  for (const p of processes) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const out: number[] = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift()!;
    out.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return out;
}

/** Whether `/proc/<pid>/environ` holds `name=value` (false when unreadable: another user's process, or gone). */
export function hasEnvironment(pid: number, name: string, value: string): boolean {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return false;
  }
  return environ.split('\0').includes(`${name}=${value}`);
}

/** Pids of the living processes whose environment holds `name=value`. */
export function processesWithEnvironment(name: string, value: string): number[] {
  return listProcesses()
    .filter((p) => p.pid !== process.pid && hasEnvironment(p.pid, name, value))
    .map((p) => p.pid);
}

/** What happened to a recorded process: stopped now, already gone, or running but not provably it (left alone). */
export type RecordedProcessOutcome = 'ended' | 'gone' | 'unverifiable';

/**
 * Ends a process that Forkline recorded (a tool's shell), with its process group and every
 * descendant, but only when the pid still names the recorded process (same start identity): a pid
 * that was handed to an unrelated process is never signalled. SIGKILL (the owner is already gone;
 * nothing waits for a graceful exit).
 */
export function endRecordedProcess(record: ProcessIdentity & { readonly pgid?: number }): RecordedProcessOutcome {
  if (!isPidAlive(record.pid)) return 'gone';
  if (record.start === undefined || processLiveness(record) !== 'running') {
    return processLiveness(record) === 'gone' ? 'gone' : 'unverifiable';
  }
  const targets = descendantsOf(record.pid);
  const kill = (pid: number) => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  if (record.pgid === record.pid) kill(-record.pid);
  kill(record.pid);
  for (const pid of targets) kill(pid);
  return 'ended';
}
