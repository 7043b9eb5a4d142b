/**
 * The folder picker's "recent workspaces": the distinct working folders of listed sessions, most
 * recently active first. Folders under `excludeUnder` (the data folder, where forks made "in their
 * own folder" live) are left out, and so are the folders imported logs name: a file's folder is
 * untrusted (docs/security.md) and is never offered as a place to work. Pure: no Node, no DOM.
 */
import type { SessionSummary } from './api.js';

/** Up to `limit` recent folders, newest activity first. */
export function recentWorkspaces(sessions: readonly SessionSummary[], options: { readonly excludeUnder?: string; readonly limit?: number } = {}): string[] {
  const limit = options.limit ?? 6;
  const exclude = options.excludeUnder?.replace(/[\\/]+$/, '');
  const latest = new Map<string, number>();
  for (const s of sessions) {
    const cwd = s.cwd;
    if (!cwd || s.origin?.kind === 'imported') continue;
    if (exclude && (cwd === exclude || cwd.startsWith(`${exclude}/`) || cwd.startsWith(`${exclude}\\`))) continue;
    latest.set(cwd, Math.max(latest.get(cwd) ?? -Infinity, s.updatedAt));
  }
  return [...latest.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([cwd]) => cwd);
}
