/**
 * The program of the process watcher (see process-supervisor.ts). It runs in its own Node process,
 * started as `node -e "(<this function's source>)(config)"`, so it must be self-contained: no
 * imports, no reference to anything outside its body (Node modules come from
 * `process.getBuiltinModule`). Its behaviour is tested through ProcessSupervisor with real processes.
 *
 * What it does:
 * - It ignores SIGINT, SIGTERM, SIGHUP and SIGPIPE, and runs in its own session, so whatever stops
 *   Forkline (Ctrl+C, a closed terminal, a logout, `kill`, SIGKILL) leaves it running to clean up.
 * - Its stdin is a pipe from Forkline: end of file (Forkline exited or died by any signal, the
 *   kernel closes the pipe) or a changed parent pid means "Forkline is gone".
 * - Forkline sends one JSON line per supervised process: `{"op":"track","pid":N,"pgid":N}`.
 *   While such processes run, it takes a snapshot of their descendants every `pollMs`, so a
 *   descendant that leaves the process group (`setsid`) and even scrubs its environment is still
 *   remembered (pid + start ticks).
 * - When Forkline is gone it ends every process that carries the marker in its environment
 *   (`markerName=markerValue`, inherited by every descendant, `setsid` or not — the technique of
 *   Jenkins' ProcessTreeKiller, which finds build processes by a cookie in their environment), every
 *   tracked process group and every remembered descendant: SIGTERM, then after `termGraceMs`
 *   SIGKILL, repeated until none is left (at most `killDeadlineMs`), then exits.
 *
 * `/proc` is Linux; elsewhere only tracked process groups and pids are ended.
 */

/** Configuration passed to the watcher program. */
export interface WatcherConfig {
  /** Forkline's pid (the watcher's parent). */
  readonly parentPid: number;
  /** Environment variable every supervised process carries… */
  readonly markerName: string;
  /** …with this value (random per Forkline process). */
  readonly markerValue: string;
  /** Snapshot interval for descendants of tracked processes (ms). */
  readonly pollMs: number;
  /** Wait between SIGTERM and SIGKILL when cleaning up (ms). */
  readonly termGraceMs: number;
  /** Give up re-killing after this long (ms). */
  readonly killDeadlineMs: number;
}

export function watcherProgram(config: WatcherConfig): void {
  const fs = process.getBuiltinModule('node:fs');
  const childProcess = process.getBuiltinModule('node:child_process');
  const hasProc = ((): boolean => {
    try {
      fs.accessSync('/proc/self/stat');
      return true;
    } catch {
      return false;
    }
  })();
  const marker = `${config.markerName}=${config.markerValue}`;
  /** Tracked roots: pid → process group. */
  const tracked = new Map<number, number | undefined>();
  /** Remembered descendants: pid → start ticks at the time they were seen. */
  const remembered = new Map<number, string>();
  let cleaning = false;

  interface Proc {
    pid: number;
    ppid: number;
    pgid: number;
    start: string;
  }
  const stat = (pid: number): Proc | undefined => {
    try {
      const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') return undefined;
      return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), start: fields[19] ?? '' };
    } catch {
      return undefined;
    }
  };
  const listProcs = (): Proc[] => {
    if (hasProc) {
      const out: Proc[] = [];
      for (const name of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(name)) continue;
        const p = stat(Number(name));
        if (p) out.push(p);
      }
      return out;
    }
    try {
      const text = childProcess.execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid='], { encoding: 'utf8', timeout: 2000 });
      return text
        .split('\n')
        .map((line) => line.trim().split(/\s+/).map(Number))
        .filter((f) => f.length === 3 && f.every((n) => Number.isFinite(n)))
        .map(([pid, ppid, pgid]) => ({ pid: pid!, ppid: ppid!, pgid: pgid!, start: '' }));
    } catch {
      return [];
    }
  };
  const marked = (pid: number): boolean => {
    if (!hasProc) return false;
    try {
      return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker);
    } catch {
      return false;
    }
  };
  const descendants = (procs: readonly Proc[], roots: Iterable<number>): Proc[] => {
    const children = new Map<number, Proc[]>();
    for (const p of procs) {
      const list = children.get(p.ppid);
      if (list) list.push(p);
      else children.set(p.ppid, [p]);
    }
    const out: Proc[] = [];
    const queue = [...roots];
    while (queue.length > 0) {
      for (const child of children.get(queue.shift()!) ?? []) {
        out.push(child);
        queue.push(child.pid);
      }
    }
    return out;
  };

  /** Every living process to end: marked ones, members of tracked groups, tracked roots and remembered descendants. */
  const targets = (): Proc[] => {
    const procs = listProcs();
    const groups = new Set([...tracked.values()].filter((g): g is number => g !== undefined));
    const out = new Map<number, Proc>();
    for (const p of procs) {
      if (p.pid === process.pid || p.pid === config.parentPid) continue;
      const known = remembered.get(p.pid);
      if (groups.has(p.pgid) || tracked.has(p.pid) || (known !== undefined && known === p.start) || marked(p.pid)) out.set(p.pid, p);
    }
    for (const p of descendants(procs, out.keys())) if (p.pid !== process.pid && p.pid !== config.parentPid) out.set(p.pid, p);
    return [...out.values()];
  };
  const signalAll = (signal: 'SIGTERM' | 'SIGKILL', procs: readonly Proc[]): void => {
    for (const group of new Set(tracked.values())) {
      if (group === undefined || group === config.parentPid) continue;
      try {
        process.kill(-group, signal);
      } catch {
        // the group is gone
      }
    }
    for (const p of procs) {
      try {
        process.kill(p.pid, signal);
      } catch {
        // already gone
      }
    }
  };

  const cleanUp = (): void => {
    if (cleaning) return;
    cleaning = true;
    const deadline = Date.now() + config.killDeadlineMs;
    signalAll('SIGTERM', targets());
    const sweep = (): void => {
      const left = targets();
      if (left.length === 0 || Date.now() > deadline) process.exit(0);
      signalAll('SIGKILL', left);
      setTimeout(sweep, 50);
    };
    setTimeout(sweep, config.termGraceMs);
  };

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGPIPE'] as const) process.on(signal, () => undefined);

  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (text: string) => {
    buffered += text;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      try {
        const message = JSON.parse(line) as { op?: string; pid?: unknown; pgid?: unknown };
        if (message.op === 'track' && typeof message.pid === 'number') tracked.set(message.pid, typeof message.pgid === 'number' ? message.pgid : undefined);
      } catch {
        // ignore a malformed line
      }
    }
  });
  process.stdin.on('end', cleanUp);
  process.stdin.on('close', cleanUp);
  process.stdin.on('error', cleanUp);

  setInterval(() => {
    if (cleaning) return;
    if (process.ppid !== config.parentPid) {
      cleanUp();
      return;
    }
    if (tracked.size === 0 || !hasProc) return;
    const procs = listProcs();
    const alive = new Set(procs.map((p) => p.pid));
    for (const pid of [...tracked.keys()]) if (!alive.has(pid) && !procs.some((p) => p.pgid === tracked.get(pid))) tracked.delete(pid);
    for (const pid of [...remembered.keys()]) if (!alive.has(pid)) remembered.delete(pid);
    for (const p of descendants(procs, [...tracked.keys(), ...remembered.keys()])) remembered.set(p.pid, p.start);
  }, config.pollMs);
  process.stdout.write('ready\n');
}
