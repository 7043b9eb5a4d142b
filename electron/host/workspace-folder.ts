/**
 * The workspace folder of a session, checked before anything runs in it.
 */
import { realpathSync, statSync } from 'node:fs';
import { ForklineError } from '../../shared/errors.js';
import { isImportedSession, type SessionHeader } from '../../shared/events.js';

/** The real path of an existing workspace folder. @throws ForklineError WORKSPACE_MISSING */
export function realWorkspace(cwd: string | undefined): string {
  if (cwd === undefined) throw new ForklineError('WORKSPACE_MISSING', 'this session has no workspace folder (imported sessions can be viewed, not continued)');
  try {
    const real = realpathSync(cwd);
    if (!statSync(real).isDirectory()) throw new Error('not a folder');
    return real;
  } catch {
    throw new ForklineError('WORKSPACE_MISSING', `the workspace folder ${cwd} does not exist or is not a folder`);
  }
}

/**
 * The folder a session may act in (run tools, open a terminal, take checkpoints): its recorded
 * workspace. An imported session's header names a folder taken from a file, which is untrusted
 * (docs/security.md): it is refused, whatever it names.
 * @throws ForklineError WORKSPACE_UNTRUSTED for an imported session; WORKSPACE_MISSING.
 */
export function sessionWorkspace(header: SessionHeader): string {
  if (isImportedSession(header)) {
    throw new ForklineError(
      'WORKSPACE_UNTRUSTED',
      `session ${header.id} was imported from a file, so the folder its log names is not used. To continue it, fork it into a folder you choose (CLI: forkline resume ${header.id} --cwd DIR).`,
    );
  }
  return realWorkspace(header.cwd);
}
