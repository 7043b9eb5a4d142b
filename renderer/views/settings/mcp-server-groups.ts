/**
 * Settings → MCP servers, one row per configured server (issue 25): the host reports a status per
 * server *per open workspace* (a server from Settings or `--mcp-config` runs once in each workspace
 * with a live session, in that folder), which listed as is gave one row per workspace — 16 rows for
 * one configuration. This folds them into one group per server configuration (name, source, file,
 * command line), with the state of each workspace it runs in.
 *
 * Pure: no DOM.
 */
import type { McpServerStatus, McpToolView } from '../../../shared/api.js';

/** Where one server of a group runs, and how it is doing there. */
export interface McpServerPlace {
  /** The workspace (absent for a Settings server no open workspace runs: `idle` / `disabled`). */
  readonly workspace?: string;
  readonly state: McpServerStatus['state'];
  readonly error?: string;
}

/** One configured server, with every workspace it runs in. */
export interface McpServerGroup {
  /** Stable React key. */
  readonly key: string;
  readonly name: string;
  readonly source: McpServerStatus['source'];
  readonly file?: string;
  readonly transport: McpServerStatus['transport'];
  readonly target: string;
  /** The state shown on the row: the worst of its places (failed > closed > untrusted > starting > ready > idle > disabled). */
  readonly state: McpServerStatus['state'];
  /** Count of places per state, for a row whose places differ (`{ready: 2, failed: 1}`). */
  readonly counts: Readonly<Partial<Record<McpServerStatus['state'], number>>>;
  readonly places: readonly McpServerPlace[];
  /** The tools of the first place that listed some (one configuration lists the same tools). */
  readonly tools: readonly McpToolView[];
  /** For `untrusted`: what `trustMcpConfig` needs. */
  readonly sha256?: string;
}

const SEVERITY: Readonly<Record<McpServerStatus['state'], number>> = { failed: 6, closed: 5, untrusted: 4, starting: 3, ready: 2, idle: 1, disabled: 0 };

/** Groups statuses by server configuration, in order of first appearance. */
export function groupMcpServers(statuses: readonly McpServerStatus[]): McpServerGroup[] {
  const groups = new Map<string, { -readonly [K in keyof McpServerGroup]: McpServerGroup[K] } & { places: McpServerPlace[]; counts: Partial<Record<McpServerStatus['state'], number>> }>();
  for (const s of statuses) {
    // Not keyed by state or sha256: a row keeps its identity (and focus) when it is trusted and starts.
    const key = [s.name, s.source, s.file ?? '', s.transport, s.target].join('\u0000');
    let group = groups.get(key);
    if (!group) {
      group = {
        key,
        name: s.name,
        source: s.source,
        ...(s.file !== undefined ? { file: s.file } : {}),
        transport: s.transport,
        target: s.target,
        state: s.state,
        counts: {},
        places: [],
        tools: s.tools,
        ...(s.sha256 !== undefined ? { sha256: s.sha256 } : {}),
      };
      groups.set(key, group);
    }
    group.places.push({ ...(s.workspace !== undefined ? { workspace: s.workspace } : {}), state: s.state, ...(s.error ? { error: s.error } : {}) });
    group.counts[s.state] = (group.counts[s.state] ?? 0) + 1;
    if (SEVERITY[s.state] > SEVERITY[group.state]) group.state = s.state;
    if (group.tools.length === 0 && s.tools.length > 0) group.tools = s.tools;
    if (group.sha256 === undefined && s.sha256 !== undefined) group.sha256 = s.sha256;
  }
  return [...groups.values()];
}

/** `in /home/me/app`, `in 3 workspaces`, or '' for a server no workspace runs. */
export function placesLabel(group: McpServerGroup): string {
  const workspaces = group.places.filter((p) => p.workspace !== undefined);
  if (workspaces.length === 0) return '';
  if (workspaces.length === 1) return `in ${workspaces[0]!.workspace}`;
  return `in ${workspaces.length} workspaces (one process each)`;
}

/** `ready in 2 · failed in 1`, when the places differ; '' when they agree. */
export function countsLabel(group: McpServerGroup): string {
  const entries = Object.entries(group.counts) as [McpServerStatus['state'], number][];
  if (entries.length < 2) return '';
  return entries
    .sort((a, b) => SEVERITY[b[0]] - SEVERITY[a[0]])
    .map(([state, n]) => `${state} in ${n}`)
    .join(' · ');
}
