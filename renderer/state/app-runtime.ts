/**
 * The composition root of one window's renderer state (no React, no DOM): owns the host client's
 * push subscription, the app store, the terminal hub and the open session controllers. Keeps
 * the sidebar list fresh (`sessions/changed`, reconnects) and resubscribes open sessions after
 * the connection reopens. Created once in `renderer/main.tsx` and handed to React by context.
 */
import type { HostClient } from '../../shared/api.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import { describeError } from '../host/host-client.js';
import type { ConnectionStatus } from '../host/ws-bridge.js';
import { AppActions } from './app-actions.js';
import { createAppStore, type AppStore, type Theme } from './app-store.js';
import type { FrameScheduler } from './frame-batcher.js';
import { routePush } from './push-router.js';
import { SessionController } from './session-controller.js';
import { TerminalHub } from './terminal-hub.js';
import { createTimelineProjector, type TimelineProjector } from './timeline-projector.js';

export interface ConnectionSource {
  status(): ConnectionStatus;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
}

export interface AppRuntimeDeps {
  readonly client: HostClient;
  readonly connection: ConnectionSource;
  readonly schedule: FrameScheduler;
  /** Delay for coalescing `sessions/changed` bursts (ms). */
  readonly refreshDelayMs?: number;
  readonly setTimer?: (fn: () => void, ms: number) => () => void;
  readonly initialTheme?: Theme;
  /** Whether log-only events start visible in the timeline (default: hidden; the debugger view turns them on). */
  readonly initialShowLogEvents?: boolean;
  /** Whether the sidebar starts collapsed (the view layer remembers the choice). */
  readonly initialSidebarCollapsed?: boolean;
}

/** An open session: its controller (facts) and its timeline projector (derived view). */
export interface OpenSession {
  readonly controller: SessionController;
  readonly projector: TimelineProjector;
}

export class AppRuntime implements IDisposable {
  readonly app: AppStore;
  readonly terminals = new TerminalHub();
  readonly client: HostClient;
  /** What a person does to sessions (buttons, shortcuts and the command palette share these). */
  readonly actions: AppActions;
  private readonly open = new Map<string, { session: OpenSession; refs: number }>();
  private readonly disposers: (() => void)[] = [];
  private refreshCancel: (() => void) | undefined;
  private lastOpenCount: number;
  private disposed = false;

  constructor(private readonly deps: AppRuntimeDeps) {
    this.client = deps.client;
    const initial = deps.connection.status();
    this.app = createAppStore({
      connection: initial,
      ...(deps.initialTheme ? { theme: deps.initialTheme } : {}),
      ...(deps.initialShowLogEvents !== undefined ? { showLogEvents: deps.initialShowLogEvents } : {}),
      ...(deps.initialSidebarCollapsed !== undefined ? { sidebarCollapsed: deps.initialSidebarCollapsed } : {}),
    });
    this.actions = new AppActions(this);
    this.lastOpenCount = initial.openCount;
    this.disposers.push(
      deps.client.onPush((push) =>
        routePush(push, {
          controller: (id) => this.open.get(id)?.session.controller,
          app: this.app,
          terminals: this.terminals,
          sessionsChanged: () => this.scheduleRefresh(),
        }),
      ),
    );
    this.disposers.push(deps.connection.onStatus((status) => this.onConnection(status)));
  }

  /** Loads the sidebar and settings. */
  start(): void {
    void this.refreshSessions();
    void this.loadSettings();
  }

  private onConnection(status: ConnectionStatus): void {
    this.app.getState().setConnection(status);
    if (status.state === 'open' && status.openCount !== this.lastOpenCount) {
      const reopened = this.lastOpenCount > 0;
      this.lastOpenCount = status.openCount;
      void this.refreshSessions();
      if (reopened) for (const { session } of this.open.values()) void session.controller.resubscribe();
      if (!this.app.getState().settings) void this.loadSettings();
    }
  }

  private scheduleRefresh(): void {
    if (this.refreshCancel) return;
    const delay = this.deps.refreshDelayMs ?? 150;
    const fire = (): void => {
      this.refreshCancel = undefined;
      void this.refreshSessions();
    };
    if (this.deps.setTimer) this.refreshCancel = this.deps.setTimer(fire, delay);
    else {
      const handle = setTimeout(fire, delay);
      this.refreshCancel = () => clearTimeout(handle);
    }
  }

  async refreshSessions(): Promise<void> {
    const state = this.app.getState();
    state.setSessionsLoading();
    try {
      const list = await this.client.listSessions({});
      if (!this.disposed) this.app.getState().setSessions(list);
    } catch (error) {
      if (!this.disposed) this.app.getState().setSessionsError(describeError(error));
    }
  }

  async loadSettings(): Promise<void> {
    try {
      const view = await this.client.getSettings({});
      if (!this.disposed) this.app.getState().setSettings(view);
    } catch {
      /* shown by the settings dialog when opened */
    }
  }

  /** Opens (or shares) a session; pair every call with `release`. */
  acquire(sessionId: string): OpenSession {
    let entry = this.open.get(sessionId);
    if (!entry) {
      const controller = new SessionController(sessionId, { client: this.client, schedule: this.deps.schedule });
      entry = { session: { controller, projector: createTimelineProjector() }, refs: 0 };
      this.open.set(sessionId, entry);
      void controller.start();
    }
    entry.refs++;
    return entry.session;
  }

  release(session: OpenSession): void {
    const id = session.controller.sessionId;
    const entry = this.open.get(id);
    if (!entry || entry.session !== session) return;
    entry.refs--;
    if (entry.refs <= 0) {
      this.open.delete(id);
      session.controller.dispose();
    }
  }

  /** Reports an action's failure to the person. */
  reportError(action: string, error: unknown): void {
    this.app.getState().toast(`${action} failed: ${describeError(error)}`);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.refreshCancel?.();
    for (const d of this.disposers) d();
    for (const { session } of this.open.values()) session.controller.dispose();
    this.open.clear();
  }
}
