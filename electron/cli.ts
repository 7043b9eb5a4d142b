/**
 * `forkline` — the headless entry (docs/architecture.md §2): parses the command line, loads the
 * command's module (electron/cli/commands/<name>.ts, named in the command table,
 * cli/command-table.ts) with `import()`, runs it, and turns its result or error into the exit code
 * and at most one error line. Nothing command-specific lives here: adding a command is a file in
 * cli/commands/ and a row in the table (CONTRIBUTING.md "Adding a CLI command"). Plain Node (no Electron). Every command
 * opens the same SQLite store as the desktop app. Bundled ahead of time (scripts/build-cli.js →
 * dist/cli); each command is its own chunk and the agent, model client, tools and MCP load only for
 * the commands that need them, so `ls`, `show` and `help` start at once.
 *
 * Exit codes (cli/exit-codes.ts): 0 success; 1 the turn ended without completing (error, cancel,
 * max-tokens, budget) or a command failed; 2 bad usage, configuration or input (e.g. no API key, a file
 * that is not a session); 129 / 130 / 143 `run` or `resume` stopped by SIGHUP / Ctrl+C / SIGTERM
 * (the turn was cancelled and the session saved).
 */
import { parseArgs } from 'node:util';
import { CLI_OPTIONS } from './cli/cli-options.js';
import { runCommand, type CliContext } from './cli/command.js';
import { COMMAND_NAMES, COMMAND_TABLE, isCommandName } from './cli/command-table.js';
import { cliOutputs, exitWhenWritten } from './cli/cli-output.js';
import { watchProcessTerminals } from './cli/dead-terminal.js';
import { reportError, UsageError } from './cli/error-line.js';
import { EXIT_USAGE } from './cli/exit-codes.js';
import { unknownCommandMessage, unknownOptionMessage } from './cli/option-suggest.js';
import { ProcessLog } from './cli/process-log.js';
import { USAGE } from './cli/usage.js';

/** Which of fds 0–2 are terminals, taken before anything can change them (dead-terminal.ts). */
const terminals = watchProcessTerminals();
/** Every write to stdout / stderr goes through these (cli-output.ts: whole output, a reader that leaves). */
const stdout = cliOutputs().stdout;
const stderr = cliOutputs().stderr;
/** The engine's console messages, one line each (process-log.ts). */
const processLog = new ProcessLog(stderr);
processLog.install();

interface ParsedCli {
  readonly command: string;
  readonly positionals: string[];
  readonly values: { readonly [flag: string]: string | boolean | string[] | undefined };
}

/** @throws UsageError for an unknown option (naming the nearest known one) or a missing value. */
function parse(argv: string[]): ParsedCli {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: CLI_OPTIONS });
  } catch (error) {
    const code = String((error as { code?: string }).code ?? '');
    const option = /'(-[^'\s]+)'/.exec((error as Error).message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) throw new UsageError(unknownOptionMessage(option, Object.keys(CLI_OPTIONS)));
    if (code.startsWith('ERR_PARSE_ARGS')) throw new UsageError((error as Error).message);
    throw error;
  }
  const { values, positionals } = parsed;
  // No command at all: help on stderr and exit 2 (help asked for: stdout and exit 0).
  const [command = values.help ? 'help' : '', ...rest] = positionals;
  return { command: values.help ? 'help' : command, positionals: rest, values };
}

async function main(argv: string[]): Promise<number> {
  const cli = parse(argv);
  const color = process.stdout.isTTY === true && cli.values['no-color'] !== true && !process.env['NO_COLOR'];
  if (cli.command === '') {
    stderr.write(`${USAGE}\n`);
    return EXIT_USAGE;
  }
  if (!isCommandName(cli.command)) throw new UsageError(unknownCommandMessage(cli.command, COMMAND_NAMES));
  const module = await COMMAND_TABLE[cli.command].load();
  const ctx: CliContext = { stdout, stderr, processLog, color, usage: USAGE };
  return runCommand(module, ctx, cli.positionals, cli.values);
}

const ending = { beforeExit: () => terminals.releaseDead() };
main(process.argv.slice(2)).then(
  (code) => {
    processLog.flush();
    return exitWhenWritten(code, ending);
  },
  (error: unknown) => {
    // One line with the error's code, never a stack trace (FORKLINE_DEBUG=1 adds it); messages may
    // quote values from a file or a server, so control characters are made visible.
    const report = reportError(error, process.env['FORKLINE_DEBUG'] === '1');
    processLog.flush();
    stderr.write(report.text);
    return exitWhenWritten(report.exitCode, ending);
  },
);
