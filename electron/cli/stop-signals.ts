/**
 * Stop signals for the headless commands (docs/reliability.md): SIGTERM (`kill`, a logout, a service manager)
 * and SIGHUP (the terminal closed) are handled like Ctrl+C — the running turn is cancelled with the
 * signal as its cause, so its closers are logged (aborted tool calls, `step/end`,
 * `turn/end{aborted}`) and the session is flushed before the process exits.
 *
 * Exit codes follow the shell convention 128 + signal number (POSIX `wait` status as shells report
 * it; signal numbers from signal(7) on Linux): 129 SIGHUP, 130 SIGINT, 143 SIGTERM.
 */
import type { IDisposable } from '../../shared/lifecycle.js';
import { exitNow } from './dead-terminal.js';

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** The exit code of a command that a signal stopped (README "Exit codes"). */
export const SIGNAL_EXIT_CODES: Readonly<Record<StopSignal, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

export interface StopSignals extends IDisposable {
  /** The first signal that asked the command to stop, if any. */
  readonly received: StopSignal | undefined;
  /** Handles `signal` as if it had been received (the terminal hung up, seen on stdin). */
  raise(signal: StopSignal): void;
}

/** The part of `process` this module uses (a test passes a stand-in). */
export interface SignalTarget {
  on(signal: StopSignal, listener: () => void): unknown;
  off(signal: StopSignal, listener: () => void): unknown;
  exit(code: number): never;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

export interface StopHandlers {
  /** Ctrl+C. Absent: SIGINT is a stop signal like the others. */
  onInterrupt?(): void;
  /** The first stop signal: cancel with `{kind: 'signal', signal}` and let the command end. */
  onStop(signal: StopSignal): void;
}

/**
 * Listens until disposed:
 * - SIGINT with `onInterrupt`: the first calls it, the second exits at once with 130;
 * - the first SIGTERM / SIGHUP (or SIGINT without `onInterrupt`) calls `onStop`; another stop
 *   signal (but not a repeated SIGHUP: one hang-up is often delivered twice), or `forceAfterMs` (default 10 s) without the command having ended, exits at once with
 *   128 + n (crash recovery closes what was left open on the next load; tool processes die with
 *   Forkline regardless, see process-supervisor.ts);
 * - after SIGHUP, writes to the vanished terminal fail: those errors are ignored so the shutdown
 *   can finish.
 */
export function listenForStopSignals(handlers: StopHandlers, options: { readonly forceAfterMs?: number; readonly target?: SignalTarget } = {}): StopSignals {
  // The real process, exiting without touching a terminal that hung up (dead-terminal.ts).
  const target: SignalTarget = options.target ?? {
    on: (signal, listener) => process.on(signal, listener),
    off: (signal, listener) => process.off(signal, listener),
    exit: exitNow,
    stdout: process.stdout,
    stderr: process.stderr,
  };
  const forceAfterMs = options.forceAfterMs ?? 10_000;
  let received: StopSignal | undefined;
  let interrupts = 0;
  const ignore = () => undefined;
  const stop = (signal: StopSignal) => {
    // A hang-up comes more than once (the kernel, then the shell forwarding it; or seen on stdin
    // too): a repeated SIGHUP is the same event, not a second request to quit at once.
    if (received === 'SIGHUP' && signal === 'SIGHUP') return;
    if (received !== undefined) target.exit(SIGNAL_EXIT_CODES[signal]);
    received = signal;
    if (signal === 'SIGHUP') {
      target.stdout.on('error', ignore);
      target.stderr.on('error', ignore);
    }
    const timer = setTimeout(() => target.exit(SIGNAL_EXIT_CODES[signal]), forceAfterMs);
    timer.unref();
    handlers.onStop(signal);
  };
  const listeners: [StopSignal, () => void][] = [
    ['SIGTERM', () => stop('SIGTERM')],
    ['SIGHUP', () => stop('SIGHUP')],
    [
      'SIGINT',
      () => {
        if (!handlers.onInterrupt || received !== undefined) return stop('SIGINT');
        interrupts++;
        if (interrupts === 1) handlers.onInterrupt();
        else target.exit(SIGNAL_EXIT_CODES.SIGINT);
      },
    ],
  ];
  for (const [signal, listener] of listeners) target.on(signal, listener);
  return {
    get received() {
      return received;
    },
    raise: (signal) => (signal === 'SIGINT' ? listeners[2]![1]() : stop(signal)),
    dispose: () => {
      for (const [signal, listener] of listeners) target.off(signal, listener);
    },
  };
}
