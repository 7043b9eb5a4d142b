/**
 * Interactive terminals for a session's workspace (docs/architecture.md §6: node-pty serves the terminal panel;
 * it is never the source of a tool result because a pty can drop the tail of fast output).
 */
import { spawn, type IPty } from 'node-pty';
import { Emitter, type Event } from '../../shared/event.js';
import { ForklineError } from '../../shared/errors.js';
import type { IDisposable } from '../../shared/lifecycle.js';

export interface TerminalData {
  readonly terminalId: string;
  readonly data: string;
}
export interface TerminalExit {
  readonly terminalId: string;
  readonly exitCode: number;
}

export class TerminalManager implements IDisposable {
  private readonly terminals = new Map<string, { pty: IPty; subscriptions: IDisposable[] }>();
  private readonly dataEmitter = new Emitter<TerminalData>();
  private readonly exitEmitter = new Emitter<TerminalExit>();
  readonly onData: Event<TerminalData> = this.dataEmitter.event;
  readonly onExit: Event<TerminalExit> = this.exitEmitter.event;

  constructor(private readonly newId: () => string) {}

  /** Starts the user's shell in `cwd`. */
  open(cwd: string, cols: number, rows: number): string {
    const shell = process.env['SHELL'] || (process.platform === 'win32' ? 'powershell.exe' : '/bin/bash');
    const pty = spawn(shell, [], { name: 'xterm-256color', cols, rows, cwd, env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string> });
    const terminalId = this.newId();
    const subscriptions = [
      pty.onData((data) => this.dataEmitter.fire({ terminalId, data })),
      pty.onExit(({ exitCode }) => {
        this.exitEmitter.fire({ terminalId, exitCode });
        this.terminals.delete(terminalId);
      }),
    ];
    this.terminals.set(terminalId, { pty, subscriptions });
    return terminalId;
  }

  private get(terminalId: string): IPty {
    const entry = this.terminals.get(terminalId);
    if (!entry) throw new ForklineError('TERMINAL_NOT_FOUND', `terminal ${terminalId} is not open`);
    return entry.pty;
  }

  write(terminalId: string, data: string): void {
    this.get(terminalId).write(data);
  }

  resize(terminalId: string, cols: number, rows: number): void {
    this.get(terminalId).resize(cols, rows);
  }

  close(terminalId: string): void {
    const entry = this.terminals.get(terminalId);
    if (!entry) return;
    this.terminals.delete(terminalId);
    for (const s of entry.subscriptions) s.dispose();
    try {
      entry.pty.kill();
    } catch {
      // already exited
    }
  }

  dispose(): void {
    for (const id of [...this.terminals.keys()]) this.close(id);
    this.dataEmitter.dispose();
    this.exitEmitter.dispose();
  }
}
