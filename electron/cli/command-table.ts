/**
 * The command table: every `forkline` command in one place, in usage order (CONTRIBUTING.md
 * "Adding a CLI command"). Each row names the module that implements the command
 * (electron/cli/commands/<name>.ts, loaded with `import()` only when that command runs, so `ls` loads
 * no engine or importer code) and its lines in the usage text's "Usage:" list.
 *
 * Adding a command is one file in commands/ and one row here (plus any new flag in cli-options.ts);
 * test/unit/cli/cli-commands.test.ts checks the rows against the files and the flags.
 */
import type { CommandModule } from './command.js';

/** One row of the table. */
export interface CommandEntry {
  /** Loads the command's module; its `command` export is run with the command's own options. */
  readonly load: () => Promise<CommandModule>;
  /** Its lines in the usage text (each a whole line, aligned by hand), none for help. */
  readonly usage: readonly string[];
}

export const COMMAND_TABLE = {
  run: {
    load: () => import('./commands/run.js'),
    usage: [`  forkline run --cwd DIR [options] "task"      run one task in DIR and stream the turn`],
  },
  resume: {
    load: () => import('./commands/resume.js'),
    usage: [
      `  forkline resume ID [options] "follow-up"     continue a stored session (an imported one: with --cwd DIR,`,
      `                                               as a new session working in DIR; --take-over: even one`,
      `                                               that another running Forkline holds; it stops saving it)`,
    ],
  },
  serve: {
    load: () => import('./commands/serve.js'),
    usage: [`  forkline serve [--port N]                    browser mode: serve the UI on 127.0.0.1`],
  },
  ls: {
    load: () => import('./commands/ls.js'),
    usage: [`  forkline ls [--json]                         list stored sessions`],
  },
  show: {
    load: () => import('./commands/show.js'),
    usage: [`  forkline show ID [--json]                    print a session's timeline`],
  },
  fork: {
    load: () => import('./commands/fork.js'),
    usage: [
      `  forkline fork ID [--at SEQ] [--worktree | --cwd DIR]`,
      `                                               fork a session at a completed turn (--worktree: in its own`,
      `                                               folder restored to the workspace as it was then; --cwd: in`,
      `                                               DIR — needed to continue an imported session)`,
    ],
  },
  compare: {
    load: () => import('./commands/compare.js'),
    usage: [
      `  forkline compare A B [--json]                compare two branches: turns, tokens, cost, time, file diff`,
      `                                               (A B C … or --json: the branches ranked, as fanout ranks them)`,
    ],
  },
  fanout: {
    load: () => import('./commands/fanout.js'),
    usage: [
      `  forkline fanout ID [--at SEQ] --variant K=V[,K=V…] --variant … [--check CMD] [--json] "prompt"`,
      `                                               2–8 branches from a turn end, each in its own folder, run at`,
      `                                               once and ranked by the check (K: model, provider, base-url,`,
      `                                               effort, prompt, system; prompt=@FILE reads a file);`,
      `                                               --check-timeout S, --concurrency N; --cleanup: remove ID's`,
      `                                               branch folders (--keep BRANCH)`,
    ],
  },
  apply: {
    load: () => import('./commands/apply.js'),
    usage: [
      `  forkline apply BRANCH [--json]               merge a branch's file changes into its parent's folder`,
      `                                               (three-way; conflicts are listed and nothing is written)`,
    ],
  },
  rewind: {
    load: () => import('./commands/rewind.js'),
    usage: [
      `  forkline rewind ID --to SEQ                  restore the session's folder to that turn and continue from`,
      `                                               there as a new fork; the abandoned line stays restorable`,
    ],
  },
  export: {
    load: () => import('./commands/export.js'),
    usage: [
      `  forkline export ID [--out FILE]              write a session as JSONL (stdout by default)`,
      `  forkline export ID --bundle FILE [--with-files] [--redact STR]…`,
      `                                               one file with the session, its forks, provenance (and`,
      `                                               workspace checkpoints); secrets redacted; import it with`,
      `                                               forkline import FILE`,
      `  forkline export ID --otlp URL|FILE [--otlp-content] [--otlp-timeout S]`,
      `                                               the session as an OpenTelemetry trace (GenAI conventions)`,
      `                                               to an OTLP/HTTP endpoint, or OTLP/JSON into FILE;`,
      `                                               message content only with --otlp-content`,
    ],
  },
  import: {
    load: () => import('./commands/import.js'),
    usage: [
      `  forkline import FILE|DIR…                    import session logs: Forkline or DeepSeek Harness JSONL,`,
      `                                               Claude Code transcripts, Codex rollouts, OpenHands`,
      `                                               trajectories, Gemini CLI chats (detected by content),`,
      `                                               Cline / Roo Code task folders, opencode storage`,
      `                                               folders; prints a summary`,
    ],
  },
  models: {
    load: () => import('./commands/models.js'),
    usage: [`  forkline models [--provider P | --base-url URL]   list an endpoint's models with their context windows`],
  },
  compact: {
    load: () => import('./commands/compact.js'),
    usage: [
      `  forkline compact ID [options]                summarise the oldest part of what the model sees (between`,
      `                                               turns; --budget / --max-tokens-total check the request)`,
    ],
  },
  price: {
    load: () => import('./commands/price.js'),
    usage: [
      `  forkline price ID [--as MODEL,…] [--json]    what a session cost, and would have cost on other models`,
      `                                               (MODEL: PROVIDER:MODEL, e.g. openai:gpt-5, or a bare id)`,
    ],
  },
  replay: {
    load: () => import('./commands/replay.js'),
    usage: [
      `  forkline replay ID|FILE.jsonl [--json] [--live-tools]`,
      `                                               feed a session's logged model answers to this build and show`,
      `                                               where it now differs (request bytes, tool calls; --live-tools:`,
      `                                               files); exit 0 identical, 1 diverged, 2 cannot replay`,
    ],
  },
  publish: {
    load: () => import('./commands/publish.js'),
    usage: [`  forkline publish ID…                         append sessions to the team store (PostgreSQL; resumable)`],
  },
  team: {
    load: () => import('./commands/team.js'),
    usage: [
      `  forkline team init|ls|show ID|fork ID --cwd DIR|search WORDS   the team store: create or migrate its`,
      `                                               schema, list, show, continue here, full-text search`,
      `                                               (--team-store URL, FORKLINE_TEAM_STORE or teamStore in cli.json)`,
    ],
  },
  help: { load: () => import('./commands/help.js'), usage: [] },
} as const satisfies Record<string, CommandEntry>;

/** A command's name. */
export type CommandName = keyof typeof COMMAND_TABLE;

/** The names in usage order (for "did you mean"). */
export const COMMAND_NAMES = Object.keys(COMMAND_TABLE) as CommandName[];

/** True when `name` is a command (an own key of the table, so never `constructor` or `toString`). */
export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMAND_TABLE, name);
}
