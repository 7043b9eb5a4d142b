/**
 * What `forkline publish` and `forkline team …` (issue 27) get from cli.ts: the parsed arguments,
 * the data folder and the two output streams. Kept apart so cli.ts passes one object and knows
 * nothing else of these commands.
 */
import { TeamStoreError } from '../team/team-errors.js';
import { resolveTeamStoreUrl, type TeamStoreUrl } from '../team/team-db.js';
import { UsageError } from './error-line.js';

export interface TeamCommandInput {
  /** Arguments after the command name (`team`: the subcommand first). */
  readonly positionals: readonly string[];
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly dataDir: string;
  readonly env: { readonly [name: string]: string | undefined };
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/**
 * The team store's connection string from `--team-store`, `FORKLINE_TEAM_STORE` or cli.json.
 * @throws UsageError (exit 2) when none is set or it is not a PostgreSQL URL.
 */
export function teamStoreUrl(input: TeamCommandInput): TeamStoreUrl {
  try {
    return resolveTeamStoreUrl(input.values['team-store'] as string | undefined, input.dataDir, input.env);
  } catch (error) {
    if (error instanceof TeamStoreError) throw new UsageError(`${error.message} [${error.code}]`);
    throw error;
  }
}
