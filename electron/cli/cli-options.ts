/**
 * Every option of every command, as one node:util `parseArgs` spec (strict: an option no command
 * has is refused, naming the nearest known one). cli.ts parses with it before it knows which
 * command module to load; each command then reads only its own spec's flags (command.ts
 * `pickOptions`). test/unit/cli/cli-commands.test.ts checks every command's spec is in here,
 * flag for flag.
 */
export const CLI_OPTIONS = {
  cwd: { type: 'string' },
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  effort: { type: 'string' },
  'context-window': { type: 'string' },
  'max-output': { type: 'string' },
  approval: { type: 'string' },
  'data-dir': { type: 'string' },
  port: { type: 'string' },
  at: { type: 'string' },
  out: { type: 'string' },
  worktree: { type: 'boolean' },
  'take-over': { type: 'boolean' },
  'no-color': { type: 'boolean' },
  json: { type: 'boolean' },
  'mcp-config': { type: 'string', multiple: true },
  variant: { type: 'string', multiple: true },
  check: { type: 'string' },
  'check-timeout': { type: 'string' },
  concurrency: { type: 'string' },
  cleanup: { type: 'boolean' },
  keep: { type: 'string', multiple: true },
  to: { type: 'string' },
  budget: { type: 'string' },
  'turn-budget': { type: 'string' },
  'max-tokens-total': { type: 'string' },
  as: { type: 'string' },
  'team-store': { type: 'string' },
  'live-tools': { type: 'boolean' },
  bundle: { type: 'string' },
  'with-files': { type: 'boolean' },
  redact: { type: 'string', multiple: true },
  otlp: { type: 'string' },
  'otlp-content': { type: 'boolean' },
  'otlp-timeout': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Read by cli.ts itself for every command: colour off, and help. */
export const GLOBAL_FLAGS = ['no-color', 'help'] as const;
