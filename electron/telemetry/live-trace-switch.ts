/**
 * Live OTLP export that can be turned on, off or re-pointed while the app runs (issue 26: the
 * Settings field), and that costs nothing when it is off: the OpenTelemetry SDK is loaded with
 * `import()` only once an endpoint is set, so `forkline run`, `serve` and the desktop host do not
 * evaluate it otherwise (test/integration/cli/ls-module-graph.test.ts keeps the runtime chunk free
 * of it).
 *
 * Every session the host runs is registered here for as long as it is live; when an exporter is
 * (or becomes) ready, each registered session is followed by it from its end at that moment
 * ({@link LiveTraceExporter.watch}). Reconfiguring ends the old exporter's watches (their open
 * spans are sent unfinished), shuts it down in the background, and follows every live session
 * with the new one. Nothing here awaits the collector: a step never waits for it.
 */
import type { SessionHeader } from '../../shared/events.js';
import { toDisposable, type IDisposable } from '../../shared/lifecycle.js';
import type { LiveSessionView, LiveTraceExporter } from './live-exporter.js';

/** Where spans go and whether message content goes with them; no endpoint = off. */
export interface LiveTraceConfig {
  readonly endpoint?: string;
  readonly includeContent?: boolean;
}

export interface LiveTraceSwitchOptions {
  /** Session headers by id, for a fork's link to its parent. */
  readonly lineage?: (id: string) => SessionHeader | undefined;
  /** Timeout of one export to the collector, ms (default 10,000). */
  readonly exportTimeoutMs?: number;
  /** Where warnings go (default console.warn). */
  readonly onWarning?: (message: string) => void;
}

interface Watched {
  readonly session: LiveSessionView;
  /** Where the next exporter starts following it: its end when it was registered or the configuration last changed. */
  fromSeq: number;
  delegate: IDisposable | undefined;
}

/** A live OTLP exporter that follows the configuration it is given, loading the SDK lazily. */
export class LiveTraceSwitch implements IDisposable {
  private readonly watched = new Set<Watched>();
  private exporter: LiveTraceExporter | undefined;
  /** Bumped on every configure: a load that finishes after a newer configure is dropped. */
  private generation = 0;
  private config: LiveTraceConfig = {};
  private loading: Promise<void> | undefined;
  private disposed = false;

  constructor(private readonly options: LiveTraceSwitchOptions = {}) {}

  /** The configuration in force. */
  get current(): LiveTraceConfig {
    return this.config;
  }

  /** Whether an exporter is loaded and following sessions. */
  get active(): boolean {
    return this.exporter !== undefined;
  }

  /**
   * Applies a configuration (same endpoint and content choice: nothing changes). Returns at once;
   * the SDK loads in the background ({@link whenReady} waits for it).
   */
  configure(config: LiveTraceConfig): void {
    if (this.disposed) return;
    const endpoint = config.endpoint?.trim() || undefined;
    const includeContent = config.includeContent === true;
    if (endpoint === this.config.endpoint && includeContent === (this.config.includeContent === true)) return;
    this.config = { ...(endpoint !== undefined ? { endpoint } : {}), includeContent };
    const generation = ++this.generation;
    this.stopExporter();
    if (endpoint === undefined) {
      this.loading = undefined;
      return;
    }
    this.loading = this.load(endpoint, includeContent, generation).catch((error: unknown) => {
      (this.options.onWarning ?? console.warn)(`live OTLP export: could not start (${error instanceof Error ? error.message : String(error)}); sessions go on unaffected`);
    });
  }

  /** Resolves when the configuration last applied has its exporter (or failed to get one). */
  async whenReady(): Promise<void> {
    await this.loading;
  }

  /** Follows a live session (the Host's `liveTraces.watch`); disposing stops following it. */
  watch(session: LiveSessionView): IDisposable {
    const entry: Watched = { session, fromSeq: session.length, delegate: this.exporter?.watch(session) };
    this.watched.add(entry);
    return toDisposable(() => {
      this.watched.delete(entry);
      entry.delegate?.dispose();
      entry.delegate = undefined;
    });
  }

  /** Sends what the exporter holds now (tests). */
  async flush(): Promise<void> {
    await this.loading;
    await this.exporter?.flush();
  }

  /** Ends every watch and shuts the exporter down (bounded, see LiveTraceExporter.shutdown). */
  async shutdown(): Promise<void> {
    // A load under way finishes first, so what the sessions did meanwhile is still sent.
    await this.loading;
    this.disposed = true;
    this.generation++;
    const exporter = this.exporter;
    this.exporter = undefined;
    for (const entry of this.watched) {
      entry.delegate?.dispose();
      entry.delegate = undefined;
    }
    await exporter?.shutdown();
  }

  dispose(): void {
    void this.shutdown();
  }

  private async load(endpoint: string, includeContent: boolean, generation: number): Promise<void> {
    const [{ LiveTraceExporter: Exporter }, { threadedOtlpSink }] = await Promise.all([import('./live-exporter.js'), import('./otlp-export-thread.js')]);
    if (generation !== this.generation || this.disposed) return;
    const exporter = new Exporter({
      sink: threadedOtlpSink(endpoint, this.options.exportTimeoutMs ?? 10_000, this.options.onWarning),
      includeContent,
      ...(this.options.lineage ? { lineage: this.options.lineage } : {}),
      ...(this.options.onWarning ? { onWarning: this.options.onWarning } : {}),
    });
    this.exporter = exporter;
    for (const entry of this.watched) entry.delegate = exporter.watch(entry.session, entry.fromSeq);
  }

  private stopExporter(): void {
    const old = this.exporter;
    this.exporter = undefined;
    for (const entry of this.watched) {
      entry.delegate?.dispose();
      entry.delegate = undefined;
      entry.fromSeq = entry.session.length;
    }
    if (old) void old.shutdown().catch(() => undefined);
  }
}
