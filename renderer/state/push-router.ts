/**
 * Fans host pushes out to their owners: per-session pushes to that session's controller (which
 * batches them per frame), status changes also to the sidebar list, `sessions/changed` to a
 * list refresh, terminal pushes to the terminal hub.
 */
import type { HostPush } from '../../shared/api.js';
import type { AppStore } from './app-store.js';
import type { SessionController } from './session-controller.js';
import type { TerminalHub } from './terminal-hub.js';

export interface PushTargets {
  readonly controller: (sessionId: string) => SessionController | undefined;
  readonly app: AppStore;
  readonly terminals: TerminalHub;
  readonly sessionsChanged: () => void;
}

export function routePush(push: HostPush, targets: PushTargets): void {
  switch (push.kind) {
    case 'session/events':
    case 'session/inbox':
    case 'session/approvals':
    case 'tool/output':
      targets.controller(push.sessionId)?.handlePush(push);
      return;
    case 'session/status':
      targets.controller(push.sessionId)?.handlePush(push);
      targets.app.getState().patchSessionStatus(push.sessionId, push.status);
      return;
    case 'sessions/changed':
      targets.sessionsChanged();
      return;
    case 'terminal/data':
      targets.terminals.data(push.terminalId, push.data);
      return;
    case 'terminal/exit':
      targets.terminals.exit(push.terminalId, push.exitCode);
      return;
    case 'playground/run':
      // The request playground listens for its own runs while it is open.
      return;
    case 'team/changed':
      // The sidebar's Team section listens for this itself.
      return;
    case 'mcp/changed':
      // The Settings dialog's MCP section listens for this itself while it is open.
      return;
    default: {
      const unknown: never = push;
      console.warn('unknown host push', unknown);
    }
  }
}
