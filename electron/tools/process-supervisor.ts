/**
 * Tool process supervision (docs/architecture.md §6; docs/reliability.md): no process a tool starts outlives the Forkline
 * process that started it, whatever ends Forkline — a clean exit, Ctrl+C, SIGTERM, SIGHUP, or
 * SIGKILL — including children that left the tool's process group with `setsid`.
 *
 * Mechanism: one small watcher process per supervisor (started with the first supervised spawn;
 * see process-watcher-program.ts). Every supervised process gets a marker in its environment
 * (`FORKLINE_SUPERVISOR=<random>`), which all its descendants inherit; the watcher holds a pipe from
 * Forkline whose end of file means Forkline is gone, and then ends every marked process, every
 * tracked process group and every descendant it saw, SIGTERM then SIGKILL, within about a second.
 * A SIGKILLed Forkline cannot run any code of its own, so the watcher is a separate process; it
 * ignores the usual termination signals and runs in its own session, so whatever stops Forkline
 * leaves it running to clean up.
 *
 * API for anything that spawns a tool process (bash, MCP stdio servers):
 * - `supervisor.spawn(command, args, options)`: `child_process.spawn` with the marker added to the
 *   environment and the process tracked (its pid and group);
 * - or, for a library that spawns on its own: pass `supervisor.env(baseEnv)` as its environment,
 *   then `supervisor.adopt(pid)` once the pid is known.
 * Each call reports the started process through `onDidSpawn` (pid, process group, start identity),
 * which the agent logs as a `tool/process` event.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Emitter, type Event } from '../../shared/event.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { processStart } from '../platform/process-identity.js';
import { watcherProgram, type WatcherConfig } from './process-watcher-program.js';

/** The environment variable that marks supervised processes. */
export const SUPERVISOR_MARKER = 'FORKLINE_SUPERVISOR';

/** A process handed to the supervisor. */
export interface SupervisedProcess {
  readonly pid: number;
  /** Its process group, when it leads one (spawned `detached`). */
  readonly pgid?: number;
  /** Start identity (electron/platform/process-identity.ts), when the platform tells. */
  readonly start?: string;
}

/** `child_process.spawn` (same overloads), as a supervised spawn offers it. */
export type SpawnFunction = typeof spawn;

export interface ProcessSupervisorOptions {
  /** Descendant snapshot interval of the watcher (ms, default 100). */
  readonly pollMs?: number;
  /** Grace between SIGTERM and SIGKILL when cleaning up (ms, default 300). */
  readonly termGraceMs?: number;
  /** Marker value (default: a random UUID). */
  readonly markerValue?: string;
}

export class ProcessSupervisor implements IDisposable {
  /** `FORKLINE_SUPERVISOR=<value>`: present in the environment of every supervised process and its descendants. */
  readonly markerValue: string;
  private watcher: ChildProcess | undefined;
  private disposed = false;
  private readonly spawnEmitter = new Emitter<SupervisedProcess>();
  /** A supervised process started (or was adopted). */
  readonly onDidSpawn: Event<SupervisedProcess> = this.spawnEmitter.event;

  constructor(private readonly options: ProcessSupervisorOptions = {}) {
    this.markerValue = options.markerValue ?? randomUUID();
  }

  /** Pid of the watcher process, once started. */
  get watcherPid(): number | undefined {
    return this.watcher?.pid;
  }

  /** `base` plus the supervision marker (pass it as the environment of any process you spawn yourself). */
  env(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
    this.ensureWatcher();
    return { ...base, [SUPERVISOR_MARKER]: this.markerValue };
  }

  /**
   * `child_process.spawn` under supervision: the marker is added to `options.env` (default
   * `process.env`) and the process is tracked.
   * @throws Error when the supervisor was disposed.
   */
  readonly spawn: SpawnFunction = ((command: string, args: readonly string[], options: SpawnOptions) => this.spawnFunction()(command, args, options)) as SpawnFunction;

  /**
   * A supervised `spawn` that also reports each process it starts to `onProcess` (the agent logs
   * it on the tool call that started it).
   */
  spawnFunction(onProcess?: (process: SupervisedProcess) => void): SpawnFunction {
    const supervised = (command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess => {
      if (this.disposed) throw new Error('the process supervisor was disposed: Forkline is shutting down');
      const child = spawn(command, args, { ...options, env: this.env(options.env ?? process.env) });
      if (child.pid !== undefined) {
        const tracked = this.adopt(child.pid, options.detached === true ? child.pid : undefined);
        try {
          onProcess?.(tracked);
        } catch (error) {
          console.error('recording a tool process failed:', error);
        }
      }
      return child;
    };
    return supervised as SpawnFunction;
  }

  /**
   * Tracks a process that was started with {@link env} by someone else (e.g. an MCP SDK transport).
   * @param pgid its process group, when it leads one
   */
  adopt(pid: number, pgid?: number): SupervisedProcess {
    const start = processStart(pid);
    const supervised: SupervisedProcess = { pid, ...(pgid !== undefined ? { pgid } : {}), ...(start !== undefined ? { start } : {}) };
    this.send({ op: 'track', pid, ...(pgid !== undefined ? { pgid } : {}) });
    this.spawnEmitter.fire(supervised);
    return supervised;
  }

  private send(message: object): void {
    this.ensureWatcher();
    const stdin = this.watcher?.stdin;
    if (!stdin || stdin.destroyed) return;
    stdin.write(`${JSON.stringify(message)}\n`);
  }

  private ensureWatcher(): void {
    if (this.watcher || this.disposed) return;
    const config: WatcherConfig = {
      parentPid: process.pid,
      markerName: SUPERVISOR_MARKER,
      markerValue: this.markerValue,
      pollMs: this.options.pollMs ?? 100,
      termGraceMs: this.options.termGraceMs ?? 300,
      killDeadlineMs: 1500,
    };
    // Bundlers may wrap named functions in a `__name` helper; the program runs alone, so define it.
    const source = `var __name = (target) => target;\n(${watcherProgram.toString()})(${JSON.stringify(config)});`;
    const { [SUPERVISOR_MARKER]: _ours, ...env } = process.env;
    void _ours;
    const watcher = spawn(process.execPath, ['-e', source], {
      // Electron's binary runs as plain Node with this variable.
      env: { ...env, ELECTRON_RUN_AS_NODE: '1', NODE_OPTIONS: '' },
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    watcher.on('error', (error) => console.error('the process watcher could not start:', error));
    watcher.stdin!.on('error', () => undefined);
    // Neither the watcher nor its pipe keeps Forkline's event loop alive.
    watcher.unref();
    (watcher.stdin as unknown as { unref?: () => void }).unref?.();
    this.watcher = watcher;
  }

  /**
   * Ends supervision: the watcher ends every supervised process still running (SIGTERM, then
   * SIGKILL) and exits. Resolves once the watcher has exited (at most about 2 s).
   */
  async close(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.spawnEmitter.dispose();
    const watcher = this.watcher;
    if (!watcher || watcher.exitCode !== null || watcher.signalCode !== null) return;
    // The watcher is unref'd; this timer keeps the event loop alive until it has exited (or 3 s).
    let timer: NodeJS.Timeout | undefined;
    const exited = new Promise<void>((resolve) => {
      watcher.once('exit', () => resolve());
      timer = setTimeout(resolve, 3000);
    });
    watcher.stdin?.end();
    await exited;
    clearTimeout(timer);
  }

  dispose(): void {
    void this.close();
  }
}
