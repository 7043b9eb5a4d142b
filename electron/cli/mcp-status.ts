/**
 * MCP server states on the terminal during `forkline run` / `resume`: one line when a server of the
 * session's workspace becomes ready (with its tool count), fails, closes, or is not started because
 * its workspace file is not trusted — each distinct state once, so a broken server is visible and
 * never silent.
 */
import type { McpServerStatus } from '../../shared/api.js';
import type { Event } from '../../shared/event.js';
import type { IDisposable } from '../../shared/lifecycle.js';

export interface McpStatusSource {
  statuses(): McpServerStatus[];
  readonly onDidChange: Event<void>;
}

/** The line for a state worth telling, or undefined. */
export function mcpStatusLine(s: McpServerStatus): string | undefined {
  switch (s.state) {
    case 'ready':
      return `· MCP server ${s.name} ready (${s.tools.length} tool${s.tools.length === 1 ? '' : 's'})`;
    case 'failed':
    case 'closed':
      return `! MCP server ${s.name} ${s.state === 'failed' ? 'failed' : 'stopped'}: ${s.error ?? 'no reason given'}`;
    case 'untrusted':
      return `! MCP server ${s.name} from ${s.file ?? 'the workspace'} was not started: that file is not trusted yet. Pass --mcp-config ${s.file ?? 'FILE'} to use it for this run, or trust it in the app's Settings.`;
    default:
      return undefined;
  }
}

/**
 * Prints state lines for the servers of `workspace` now and whenever they change.
 * @param write receives whole lines (ending in a newline).
 */
export function printMcpStatus(source: McpStatusSource, workspace: string, write: (line: string) => void): IDisposable {
  const shown = new Map<string, string>();
  const report = () => {
    for (const s of source.statuses()) {
      if (s.workspace !== workspace) continue;
      const line = mcpStatusLine(s);
      const key = `${s.source}\0${s.name}`;
      if (line === undefined || shown.get(key) === line) continue;
      shown.set(key, line);
      write(`${line}\n`);
    }
  };
  report();
  return source.onDidChange(report);
}
