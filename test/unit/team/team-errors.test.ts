/**
 * How a PostgreSQL error becomes a TeamStoreError code (electron/team/team-errors.ts): the cases the
 * publisher recovers from by re-reading the server's next_seq are TEAM_SEQ_CONFLICT.
 */
import { describe, expect, it } from 'vitest';
import { teamError } from '../../../electron/team/team-errors.js';

/** An error shaped as `pg` gives it: the server's message, its SQLSTATE in `code`, the constraint when one is named. */
function pgError(message: string, code: string, constraint?: string): Error {
  return Object.assign(new Error(message), { code, ...(constraint ? { constraint } : {}) });
}

describe('teamError', () => {
  it('a deadlock or serialisation failure with a concurrent publisher is a seq conflict, which publishing resumes from', () => {
    for (const code of ['40P01', '40001']) {
      const error = teamError(pgError('deadlock detected', code), 'postgres://alice:***@127.0.0.1:5432/team');
      expect(error.code).toBe('TEAM_SEQ_CONFLICT');
      expect(error.message).toContain(`SQLSTATE ${code}`);
    }
    expect(teamError(pgError('duplicate key value violates unique constraint "events_pkey"', '23505', 'events_pkey'), 'x').code).toBe('TEAM_SEQ_CONFLICT');
  });

  it('any other duplicate key or server error stays a failure with its SQLSTATE', () => {
    expect(teamError(pgError('duplicate key', '23505', 'sessions_pkey'), 'x').code).toBe('TEAM_STORE_FAILED');
    const other = teamError(pgError('division by zero', '22012'), 'x');
    expect(other.code).toBe('TEAM_STORE_FAILED');
    expect(other.message).toContain('SQLSTATE 22012');
  });
});
