/**
 * What a person does to sessions, as plain functions over the runtime (no React, no DOM), shared by
 * buttons, keyboard shortcuts and the command palette: start a session (the OS folder dialog, else
 * the folder browser), send / queue / steer, cancel, fork, compare with the parent.
 *
 * A send while the provider is not ready (no key, no model — see provider-readiness.ts — or the
 * host answering MISSING_CREDENTIAL) starts no turn: it opens the provider setup card. From an open
 * session the text stays in the composer (`held`); the start screen's first prompt is kept here and
 * `providerConfigured()` starts its session once the card saved a working provider.
 */
import type { HostClient, SessionBudget } from '../../shared/api.js';
import { formatBytes } from '../../shared/format.js';
import { HostCallError } from '../host/host-client.js';
import type { AppStore } from './app-store.js';
import { providerReadiness } from './provider-readiness.js';

/**
 * What the actions use of the window's runtime (AppRuntime satisfies it; declared here so this
 * file does not import app-runtime.ts, which creates the actions).
 */
export interface ActionRuntime {
  readonly app: AppStore;
  readonly client: HostClient;
  /** Reloads the sidebar's session list. */
  refreshSessions(): Promise<void>;
  /** Reloads the settings into the app store. */
  loadSettings(): Promise<void>;
  /** Shows a failed action to the person. */
  reportError(action: string, error: unknown): void;
}

/** The start screen's first prompt, held until a provider is configured. */
interface PendingStart {
  readonly cwd: string;
  readonly text: string;
  /** Set when the session was already created before the host refused the send. */
  readonly sessionId?: string;
}

/** How the composer's text is delivered: a new turn (idle: runs now; running: queued for the next turn) or steering of the running turn. */
export type SendMode = 'followup' | 'steer';

/** What became of a send: delivered, held back for the provider setup card (nothing started), or failed (reported). */
export type SendOutcome = 'sent' | 'held' | 'failed';

export class AppActions {
  private pending: PendingStart | undefined;

  constructor(private readonly runtime: ActionRuntime) {}

  private get app() {
    return this.runtime.app.getState();
  }

  /** New session: the desktop app's folder dialog, else (browser mode) the folder browser. */
  async newSession(): Promise<void> {
    try {
      const chosen = await this.runtime.client.chooseWorkspace({});
      if (chosen) await this.createSession(chosen.path);
      else this.app.openFolderBrowser(true);
    } catch (error) {
      this.runtime.reportError('Choose folder', error);
    }
  }

  /** Creates an empty session in `cwd` and opens it with the composer focused. Returns its id, or undefined on failure (reported). */
  async createSession(cwd: string): Promise<string | undefined> {
    this.app.openFolderBrowser(false);
    try {
      const summary = await this.runtime.client.createSession({ cwd });
      await this.runtime.refreshSessions();
      this.app.select(summary.id, { focusSession: true });
      return summary.id;
    } catch (error) {
      this.runtime.reportError('New session', error);
      return undefined;
    }
  }

  /**
   * The start screen's send: a new session in `cwd` whose first turn is `text` (its title becomes
   * the prompt). Without a ready provider it starts nothing: the prompt is held and the setup card
   * opens; `providerConfigured()` starts it.
   */
  async startSession(cwd: string, text: string): Promise<SendOutcome> {
    const body = text.trim();
    if (!body) return 'failed';
    if (!providerReadiness(this.app.settings).ready) {
      this.pending = { cwd, text: body };
      this.app.openSetup(true, 'send');
      return 'held';
    }
    const id = await this.createSession(cwd);
    if (id === undefined) return 'failed';
    const outcome = await this.send(id, body, 'followup');
    if (outcome === 'held') this.pending = { cwd, text: body, sessionId: id };
    return outcome;
  }

  /**
   * Sends composer text. `held`: no provider works, so nothing was sent and the setup card opened
   * (the caller keeps the text); `failed`: reported as a toast. Once sent, the session's timeline
   * jumps to its newest row and follows the tail again, wherever the person had scrolled: what was
   * just sent (or the running turn it was queued behind or steers) is what they want to see.
   */
  async send(sessionId: string, text: string, mode: SendMode): Promise<SendOutcome> {
    const body = text.trim();
    if (!body) return 'failed';
    if (mode === 'followup' && !providerReadiness(this.app.settings).ready) {
      this.app.openSetup(true, 'send');
      return 'held';
    }
    try {
      if (mode === 'steer') await this.runtime.client.steer({ sessionId, text: body });
      else await this.runtime.client.followup({ sessionId, text: body });
      this.app.showLatest(sessionId);
      return 'sent';
    } catch (error) {
      if (HostCallError.is(error, 'MISSING_CREDENTIAL')) {
        this.app.openSetup(true, 'send');
        return 'held';
      }
      this.runtime.reportError(mode === 'steer' ? 'Steer' : 'Send', error);
      return 'failed';
    }
  }

  /** Called by the setup card after it saved a working provider: starts a held first prompt, if any. */
  async providerConfigured(): Promise<void> {
    await this.runtime.loadSettings();
    const pending = this.pending;
    this.pending = undefined;
    this.app.openSetup(false);
    if (pending?.sessionId !== undefined) await this.send(pending.sessionId, pending.text, 'followup');
    else if (pending) await this.startSession(pending.cwd, pending.text);
  }

  /** Forgets a held send (the setup card was closed without saving). */
  dropPending(): void {
    this.pending = undefined;
  }

  /** The held first prompt, if any (named on the setup card). */
  get pendingText(): string | undefined {
    return this.pending?.text;
  }

  async cancel(sessionId: string): Promise<void> {
    try {
      await this.runtime.client.cancel({ sessionId });
    } catch (error) {
      this.runtime.reportError('Cancel', error);
    }
  }

  /** Forks after the turn closed at `atSeq` (default: the last closed turn) and opens the child. */
  async fork(sessionId: string, options: { readonly atSeq?: number; readonly worktree?: boolean } = {}): Promise<string | undefined> {
    try {
      const child = await this.runtime.client.forkSession({ sessionId, ...(options.atSeq !== undefined ? { atSeq: options.atSeq } : {}), ...(options.worktree ? { worktree: true } : {}) });
      await this.runtime.refreshSessions();
      this.app.select(child.id, { focusSession: true });
      return child.id;
    } catch (error) {
      this.runtime.reportError(options.worktree ? 'Fork in its own folder' : 'Fork', error);
      return undefined;
    }
  }

  /** Manual compaction; the outcome is shown as a toast. */
  /**
   * Sets (or, with neither limit, clears) a session's budget and reloads the list that shows it.
   * Returns the host's refusal message (e.g. a budget that is not above 0), or undefined when it was set.
   */
  async setBudget(sessionId: string, budget: SessionBudget): Promise<string | undefined> {
    try {
      await this.runtime.client.setSessionBudget({ sessionId, ...budget });
      await this.runtime.refreshSessions();
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  async compact(sessionId: string): Promise<void> {
    try {
      const result = await this.runtime.client.compactSession({ sessionId });
      this.app.toast(result.compacted ? `Compaction replaced ${result.shadowedCount} event(s) with a summary.` : 'Nothing to compact yet.', 'info');
    } catch (error) {
      this.runtime.reportError('Compact', error);
    }
  }

  /** Exports a session; `save` writes the file (the view layer's download). Toasts what was written: the file's name, size and lines. */
  async exportSession(sessionId: string, save: (fileName: string, jsonl: string) => void): Promise<void> {
    try {
      const { fileName, jsonl } = await this.runtime.client.exportSession({ sessionId });
      save(fileName, jsonl);
      const lines = jsonl.split('\n').filter((line) => line !== '').length;
      this.app.toast(`Session exported: ${fileName} (${formatBytes(new TextEncoder().encode(jsonl).length)}, ${lines} line${lines === 1 ? '' : 's'} of JSONL).`, 'info');
    } catch (error) {
      this.runtime.reportError('Export', error);
    }
  }

  /**
   * Exports a session's portable bundle (its forks, provenance, optionally the checkpoint files);
   * `save` writes the file (the view layer's download). The host hands the file over in chunks
   * (`readDownload`), each turned into a Blob at once, so a bundle of tens of MB is never one
   * message nor one string here; `onProgress` gets the bytes read so far and the total. Toasts what went in.
   * @returns whether the bundle was written.
   */
  async exportBundle(sessionId: string, withFiles: boolean, save: (fileName: string, file: Blob) => void, onProgress?: (read: number, total: number) => void): Promise<boolean> {
    const client = this.runtime.client;
    try {
      const b = await client.exportBundle({ sessionId, withFiles });
      const pieces: Blob[] = [];
      try {
        for (;;) {
          const chunk = await client.readDownload({ downloadId: b.downloadId });
          if (chunk.text !== '') pieces.push(new Blob([chunk.text]));
          onProgress?.(chunk.offset, b.bytes);
          if (chunk.done) break;
        }
      } catch (error) {
        void client.closeDownload({ downloadId: b.downloadId }).catch(() => undefined);
        throw error;
      }
      save(b.fileName, new Blob(pieces, { type: 'application/x-ndjson' }));
      const parts = [
        `${b.sessions} session(s)`,
        `${b.events} events`,
        ...(withFiles ? [`${b.checkpoints} checkpoint(s) with files`] : []),
        b.redacted > 0 ? `${b.redacted} secret(s) redacted` : 'no secrets found',
      ];
      this.app.toast(`Bundle ${b.fileName} saved (${formatBytes(b.bytes)}): ${parts.join(', ')}${b.missingCheckpoints > 0 ? `; ${b.missingCheckpoints} checkpoint(s) not included` : ''}.`, 'info');
      return true;
    } catch (error) {
      this.runtime.reportError('Export bundle', error);
      return false;
    }
  }

  /** Opens the compare view of a fork (B) against its parent (A). */
  compareWithParent(sessionId: string): void {
    const parent = this.app.sessions.find((s) => s.id === sessionId)?.parentSession;
    if (parent === undefined) {
      this.app.toast('This session is not a fork: it has no parent to compare with.', 'info');
      return;
    }
    this.app.openCompare(parent, sessionId);
  }
}
