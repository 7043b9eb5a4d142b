/**
 * Exiting after the terminal went away (docs/reliability.md "Signals and exit codes": closing the real terminal killed `run` on
 * signal 6). At exit Node restores the terminal modes it saved at start for each of fds 0–2 that
 * was a terminal (`ResetStdio` in node.cc), and it asserts that `tcsetattr` succeeded. On a hung-up
 * terminal `tcsetattr` fails with EIO, the assertion fails and Node aborts (SIGABRT) instead of
 * exiting with our code (129 after SIGHUP).
 *
 * Node skips that restore for a descriptor that is closed (EBADF) or now names another file, so the
 * fix is to never touch the dead terminal: before exiting, close each of fds 0–2 that was a
 * terminal at start and no longer is one (`isatty` fails on a hung-up terminal). A live terminal
 * is left alone, so its modes are still restored.
 */
import { closeSync } from 'node:fs';
import { isatty } from 'node:tty';

/** The part of node:fs / node:tty this module uses (a test can pass others). */
export interface TerminalProbe {
  isatty(fd: number): boolean;
  close(fd: number): void;
}

const realProbe: TerminalProbe = { isatty, close: closeSync };

/** Remembers which of fds 0–2 are terminals now; `releaseDead()` closes those that hung up since. */
export class DeadTerminalGuard {
  private readonly terminals: readonly number[];

  constructor(private readonly probe: TerminalProbe = realProbe) {
    this.terminals = [0, 1, 2].filter((fd) => probe.isatty(fd));
  }

  /** The fds that were terminals at start. */
  get watched(): readonly number[] {
    return this.terminals;
  }

  /**
   * Closes each watched fd whose terminal is gone (so Node's exit does not assert on it) and
   * returns them. Call right before `process.exit`; nothing may write to those fds afterwards.
   */
  releaseDead(): number[] {
    const dead = this.terminals.filter((fd) => !this.probe.isatty(fd));
    for (const fd of dead) {
      try {
        this.probe.close(fd);
      } catch {
        // Already closed: Node skips it too.
      }
    }
    return dead;
  }
}

let processGuard: DeadTerminalGuard | undefined;

/**
 * Starts watching this process's terminals (call once, first thing in the CLI); later calls return
 * the same guard. The guard also runs on the process's `exit` event, so an exit that is not ours
 * (the event loop running dry) does not touch a dead terminal either.
 */
export function watchProcessTerminals(): DeadTerminalGuard {
  if (processGuard === undefined) {
    const guard = new DeadTerminalGuard();
    processGuard = guard;
    if (guard.watched.length > 0) process.on('exit', () => guard.releaseDead());
  }
  return processGuard;
}

/** `process.exit(code)` without touching a terminal that hung up (see the module comment). */
export function exitNow(code: number): never {
  processGuard?.releaseDead();
  process.exit(code);
}
