/**
 * This data folder's installation id for the team store: a random UUID kept in
 * `<data dir>/team.json`, written once. The server records it with every session it publishes, so
 * a second machine (another data folder) publishing a session of the same id is refused as an
 * owner mismatch instead of interleaving two logs.
 */
import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file that holds it. */
export function installationFile(dataDir: string): string {
  return join(dataDir, 'team.json');
}

/**
 * Reads the installation id, creating it the first time: written to a temporary file and linked
 * into place, so two processes starting at once agree on one id (the second link fails and it
 * reads the first one's).
 * @throws system errors writing the data folder (EACCES, ENOSPC, …).
 */
export function installationId(dataDir: string): string {
  const file = installationFile(dataDir);
  const existing = readId(file);
  if (existing !== undefined) return existing;
  const id = randomUUID();
  const temporary = `${file}.tmp-${process.pid}`;
  writeFileSync(temporary, `${JSON.stringify({ installation: id })}\n`, { mode: 0o600 });
  try {
    linkSync(temporary, file);
    return id;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const theirs = readId(file);
    if (theirs === undefined) throw new Error(`${file} exists but holds no installation id; remove it to create a new one`, { cause: error });
    return theirs;
  } finally {
    rmSync(temporary, { force: true });
  }
}

function readId(file: string): string | undefined {
  try {
    const value = (JSON.parse(readFileSync(file, 'utf8')) as { installation?: unknown } | null)?.installation;
    return typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
