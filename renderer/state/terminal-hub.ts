/**
 * Routes `terminal/data` and `terminal/exit` pushes to the terminal view that opened the
 * terminal. Output that arrives before the view attaches (between `openTerminal` answering and
 * the listener registering) is buffered and replayed on attach.
 */
export interface TerminalSink {
  data(text: string): void;
  exit(exitCode: number): void;
}

export class TerminalHub {
  private readonly sinks = new Map<string, TerminalSink>();
  private readonly buffered = new Map<string, { data: string[]; exit?: number }>();

  attach(terminalId: string, sink: TerminalSink): () => void {
    this.sinks.set(terminalId, sink);
    const pending = this.buffered.get(terminalId);
    if (pending) {
      this.buffered.delete(terminalId);
      for (const text of pending.data) sink.data(text);
      if (pending.exit !== undefined) sink.exit(pending.exit);
    }
    return () => {
      if (this.sinks.get(terminalId) === sink) this.sinks.delete(terminalId);
    };
  }

  data(terminalId: string, text: string): void {
    const sink = this.sinks.get(terminalId);
    if (sink) sink.data(text);
    else this.buffer(terminalId).data.push(text);
  }

  exit(terminalId: string, exitCode: number): void {
    const sink = this.sinks.get(terminalId);
    if (sink) sink.exit(exitCode);
    else this.buffer(terminalId).exit = exitCode;
  }

  private buffer(terminalId: string): { data: string[]; exit?: number } {
    let b = this.buffered.get(terminalId);
    if (!b) {
      // Bound the number of unattached terminals we remember.
      if (this.buffered.size > 16) this.buffered.delete(this.buffered.keys().next().value as string);
      this.buffered.set(terminalId, (b = { data: [] }));
    }
    return b;
  }
}
