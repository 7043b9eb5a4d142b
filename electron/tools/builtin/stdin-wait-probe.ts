/**
 * Finds the processes of a command that are blocked reading its standard input (Linux only).
 *
 * bash runs commands with a standard input that is never written (a socket Forkline keeps open), so
 * a process that reads it waits forever: that is a command waiting for input, and it can be told
 * from one that is merely slow. The probe reads procfs (proc(5)): `/proc/PID/stat` for the process
 * group, `/proc/PID/syscall` for the system call a sleeping process is blocked in and its first
 * argument (the file descriptor), and `/proc/PID/fd/N` to see whether that descriptor is the
 * command's standard input. System call numbers are from the kernel's syscall tables
 * (arch/x86/entry/syscalls/syscall_64.tbl; include/uapi/asm-generic/unistd.h for arm64).
 *
 * Everything here is best effort: on another OS, another architecture, or when procfs cannot be
 * read, the probe finds nothing and the command simply runs until its timeout.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** read, readv, pread64, preadv, preadv2 per architecture. */
const READ_SYSCALLS: Readonly<Partial<Record<NodeJS.Architecture, ReadonlySet<number>>>> = {
  x64: new Set([0, 19, 17, 295, 327]),
  arm64: new Set([63, 65, 67, 69, 286]),
};

/** epoll_wait, epoll_pwait, epoll_pwait2 per architecture (event loops: Node, Python asyncio, …). */
const EPOLL_SYSCALLS: Readonly<Partial<Record<NodeJS.Architecture, ReadonlySet<number>>>> = {
  x64: new Set([232, 281, 441]),
  arm64: new Set([22, 441]),
};

/** A process blocked reading the command's standard input. */
export interface StdinReader {
  readonly pid: number;
  /** The program name (`/proc/PID/comm`). */
  readonly name: string;
  /**
   * `read`: a thread is blocked in a read of stdin (certainly waiting for input); `poll`: an event
   * loop is waiting with stdin among what it watches (a prompt library, or a program that also
   * listens for commands), a weaker sign.
   */
  readonly how: 'read' | 'poll';
}

/** Whether this platform can be probed at all. */
export function canProbeStdin(): boolean {
  return process.platform === 'linux' && READ_SYSCALLS[process.arch] !== undefined;
}

/**
 * What the command's standard input is (`socket:[123]`), read from the first process right after
 * it started; undefined when it cannot be read (then there is nothing to probe).
 */
export function stdinIdentity(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/0`);
  } catch {
    return undefined;
  }
}

/**
 * The processes of process group `pgid` that are blocked reading the file `stdin` (as returned by
 * {@link stdinIdentity}): a thread in a read of it, or an event loop waiting on an epoll set that
 * watches it (`/proc/PID/fdinfo/EPFD` lists the watched files' inodes). Never throws.
 */
export function findStdinReaders(pgid: number, stdin: string): StdinReader[] {
  const reads = READ_SYSCALLS[process.arch];
  const polls = EPOLL_SYSCALLS[process.arch];
  if (reads === undefined || polls === undefined) return [];
  const stdinInode = /^socket:\[(\d+)\]$|^pipe:\[(\d+)\]$/.exec(stdin);
  const inodeHex = stdinInode ? Number(stdinInode[1] ?? stdinInode[2]).toString(16) : undefined;
  const found: StdinReader[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    const c = entry.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      // Fields after the parenthesised command name: state ppid pgrp …
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid || fields[0] !== 'S') continue;
      let how: StdinReader['how'] | undefined;
      for (const task of readdirSync(`/proc/${entry}/task`)) {
        const syscall = readFileSync(`/proc/${entry}/task/${task}/syscall`, 'latin1').trim().split(' ');
        const nr = Number(syscall[0]);
        const fd = Number.parseInt(syscall[1] ?? '', 16);
        if (!Number.isInteger(fd)) continue;
        if (reads.has(nr) && readlinkSync(`/proc/${entry}/fd/${fd}`) === stdin) {
          how = 'read';
          break;
        }
        if (how === undefined && inodeHex !== undefined && polls.has(nr) && watchesInode(`/proc/${entry}/fdinfo/${fd}`, inodeHex)) how = 'poll';
      }
      if (how !== undefined) found.push({ pid: Number(entry), name: readFileSync(`/proc/${entry}/comm`, 'utf8').trim(), how });
    } catch {
      // The process ended meanwhile, or procfs is not readable: skip it.
    }
  }
  return found;
}

/** True when the epoll set described by an fdinfo file watches the file with inode `inodeHex`. */
function watchesInode(fdinfo: string, inodeHex: string): boolean {
  try {
    return readFileSync(fdinfo, 'latin1')
      .split('\n')
      .some((line) => line.startsWith('tfd:') && new RegExp(`\\bino:${inodeHex}\\b`).test(line));
  } catch {
    return false;
  }
}
