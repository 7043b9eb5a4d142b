/**
 * The workspace folder of a session, checked before anything runs in it.
 */
import { realpathSync, statSync } from 'node:fs';
import { ForklineError } from '../../shared/errors.js';

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
