/**
 * Process identity that a recycled pid cannot fake (docs/architecture.md §7, §6): a pid plus the process's start
 * time, read from the operating system.
 *
 * - Linux: field 22 (`starttime`, clock ticks since boot) of `/proc/<pid>/stat` (man 5 proc),
 *   qualified by the boot id (`/proc/sys/kernel/random/boot_id`), so an identity recorded before a
 *   reboot never matches a process after it. Exact: two processes with the same pid in one boot
 *   cannot share a start tick.
 * - Other POSIX systems (macOS, BSD): `ps -o lstart= -p PID` (POSIX `ps`; 1 s resolution).
 * - Elsewhere (Windows): no start time; liveness then rests on the pid alone.
 *
 * This is the platform layer: plain Node, no other Forkline layer. The store uses it for session
 * ownership, the tool supervisor and crash recovery for the processes tools started.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** A process as recorded by Forkline: pid plus, where the platform tells, its start identity. */
export interface ProcessIdentity {
  readonly pid: number;
  /** Opaque start identity (`linux:<boot id>:<start ticks>` or `ps:<lstart>`); absent when unknown. */
  readonly start?: string;
}

/** Where a session owner runs: process identity plus host name and the epoch ms of the claim. */
export interface OwnerIdentity extends ProcessIdentity {
  readonly host: string;
}

/** `running`: the same process is alive; `gone`: it is not (or the pid now names another process); `unknown`: cannot tell. */
export type ProcessLiveness = 'running' | 'gone' | 'unknown';

/** Clock ticks per second of `/proc/<pid>/stat` times: USER_HZ, fixed at 100 by the Linux ABI (man 5 proc, `sysconf(_SC_CLK_TCK)`). */
const USER_HZ = 100;

let bootIdCache: string | null | undefined;
function bootId(): string | null {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootIdCache = null;
    }
  }
  return bootIdCache;
}

/** The fields of `/proc/<pid>/stat` after the command name (field 3 = index 0), or undefined. */
export function procStatFields(pid: number): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces and ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  return text
    .slice(close + 2)
    .trim()
    .split(' ');
}

/** Index of field 22 (`starttime`) in {@link procStatFields}' result. */
const STARTTIME_INDEX = 22 - 3;

/** Whether the pid names a running process (a zombie counts as gone). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = procStatFields(pid);
  return fields === undefined || fields[0] !== 'Z';
}

/**
 * The start identity of a running process, or undefined when the process is gone or the platform
 * cannot tell. Spawns `ps` on non-Linux POSIX systems (a few ms).
 */
export function processStart(pid: number): string | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (process.platform === 'linux') {
    const fields = procStatFields(pid);
    const ticks = fields?.[STARTTIME_INDEX];
    const boot = bootId();
    if (ticks === undefined || !/^\d+$/.test(ticks)) return undefined;
    return `linux:${boot ?? 'unknown-boot'}:${ticks}`;
  }
  if (process.platform === 'win32') return undefined;
  try {
    const lstart = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return lstart === '' ? undefined : `ps:${lstart}`;
  } catch {
    return undefined;
  }
}

/**
 * Approximate epoch ms at which a running process started (Linux: boot time + start ticks; the boot
 * time of `/proc/stat` may drift by about a second). Used only for records that carry no start
 * identity (schema-2 owner marks). Undefined when unknown.
 */
export function processStartedAtMs(pid: number): number | undefined {
  if (process.platform === 'linux') {
    const ticks = Number(procStatFields(pid)?.[STARTTIME_INDEX]);
    if (!Number.isFinite(ticks)) return undefined;
    try {
      const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
      return btime === undefined ? undefined : Number(btime) * 1000 + (ticks * 1000) / USER_HZ;
    } catch {
      return undefined;
    }
  }
  const start = processStart(pid);
  if (start === undefined) return undefined;
  const ms = Date.parse(start.slice('ps:'.length));
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Whether the process a record names is still that process.
 * - pid not running → `gone`;
 * - recorded start identity: equal to the pid's current one → `running`, different → `gone`
 *   (the pid was reused), current one unreadable → `unknown`;
 * - no recorded start: `unknown` (the caller decides with what else it knows).
 */
export function processLiveness(identity: ProcessIdentity): ProcessLiveness {
  if (!isPidAlive(identity.pid)) return 'gone';
  if (identity.start === undefined) return 'unknown';
  const now = processStart(identity.pid);
  if (now === undefined) return isPidAlive(identity.pid) ? 'unknown' : 'gone';
  return now === identity.start ? 'running' : 'gone';
}

let selfCache: OwnerIdentity | undefined;
/** This process: pid, start identity (read once) and host name. */
export function currentProcessIdentity(): OwnerIdentity {
  if (selfCache?.pid !== process.pid) {
    const start = processStart(process.pid);
    selfCache = { pid: process.pid, host: hostname(), ...(start !== undefined ? { start } : {}) };
  }
  return selfCache;
}
