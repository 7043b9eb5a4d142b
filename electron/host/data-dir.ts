/**
 * Where Forkline keeps its data (sessions.db, settings.json, spill/, checkpoints.git, worktrees/).
 * Its own small module so the CLI can name it in its help without loading the rest of the host.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The default data folder: `$FORKLINE_DATA_DIR`, else `$XDG_DATA_HOME/forkline`, else
 * `~/.local/share/forkline` (Linux), `~/Library/Application Support/Forkline` (macOS),
 * `%APPDATA%/Forkline` (Windows). The desktop app passes Electron's userData folder instead.
 */
export function defaultDataDir(env: { readonly [name: string]: string | undefined } = process.env): string {
  if (env['FORKLINE_DATA_DIR']) return env['FORKLINE_DATA_DIR'];
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Forkline');
  if (process.platform === 'win32') return join(env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), 'Forkline');
  return join(env['XDG_DATA_HOME'] ?? join(homedir(), '.local', 'share'), 'forkline');
}
