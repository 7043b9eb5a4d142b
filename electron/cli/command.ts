/**
 * The shape of one CLI command (electron/cli/commands/<name>.ts; CONTRIBUTING.md "Adding a CLI
 * command"): its option spec (node:util `parseArgs` entries) and a run function taking the options
 * typed by that spec. `electron/cli.ts` parses every command's options in one strict pass (the union,
 * `CLI_OPTIONS` in cli-options.ts), loads the command with `import()` and hands it its own options.
 */
import type { CliOutput } from './cli-output.js';
import type { ProcessLog } from './process-log.js';

/** One option as `parseArgs` takes it. */
export interface OptionDef {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
}

/** A command's options by flag name (without `--`). */
export type OptionSpec = { readonly [flag: string]: OptionDef };

/** The parsed value of one option: a string, a list (repeatable), or true; undefined when absent. */
export type OptionValue<D extends OptionDef> = D['type'] extends 'boolean' ? boolean | undefined : D extends { readonly multiple: true } ? readonly string[] | undefined : string | undefined;

/** The parsed options of a spec. */
export type OptionValues<S extends OptionSpec> = { readonly [K in keyof S]: OptionValue<S[K]> };

/** What cli.ts gives every command: the process's outputs and how to print. */
export interface CliContext {
  /** Every write to stdout goes through this (whole output, a reader that leaves: cli-output.ts). */
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  /** The engine's console messages, one line each (muted once a session is taken over). */
  readonly processLog: ProcessLog;
  /** Colour on: stdout is a terminal, no --no-color, no NO_COLOR. */
  readonly color: boolean;
  /** The usage text (cli/usage.ts; handed down so that no command module imports the command table). */
  readonly usage: string;
}

/** What a command runs with. */
export interface CommandInput<S extends OptionSpec> {
  /** The words after the command name. */
  readonly positionals: readonly string[];
  readonly options: OptionValues<S>;
}

/** One command module's exports. */
export interface CliCommand<S extends OptionSpec> {
  readonly options: S;
  /**
   * Runs the command and returns its exit code (cli/exit-codes.ts).
   * @throws UsageError (exit 2) for bad usage; any other error is reported as one line by cli.ts.
   */
  readonly run: (ctx: CliContext, input: CommandInput<S>) => Promise<number>;
}

/** A command with its spec's types checked (identity at run time). */
export function defineCommand<const S extends OptionSpec>(command: CliCommand<S>): CliCommand<S> {
  return command;
}

/**
 * A command module as the command table in cli.ts holds it, before it is loaded. Its `run` takes
 * options of its own spec (checked in its file by {@link defineCommand}); the table only needs to
 * know there is one, so the parameter is `never` here and {@link runCommand} hands the options over.
 */
export interface CommandModule {
  readonly command: { readonly options: OptionSpec; readonly run: (ctx: CliContext, input: never) => Promise<number> };
}

/** The values of `spec`'s flags out of the parsed union (the rest belong to other commands). */
export function pickOptions<S extends OptionSpec>(spec: S, values: { readonly [flag: string]: unknown }): OptionValues<S> {
  return Object.fromEntries(Object.keys(spec).map((flag) => [flag, values[flag]])) as OptionValues<S>;
}

/**
 * Runs a loaded command with its own flags out of `values` (parsed with the union spec, CLI_OPTIONS,
 * whose entry for each flag is the command's own: test/unit/cli/cli-commands.test.ts), so the values
 * have the types the command's spec says.
 * @returns the command's exit code; whatever it throws propagates.
 */
export function runCommand(module: CommandModule, ctx: CliContext, positionals: readonly string[], values: { readonly [flag: string]: unknown }): Promise<number> {
  const { command } = module;
  const run = command.run as (ctx: CliContext, input: CommandInput<OptionSpec>) => Promise<number>;
  return run(ctx, { positionals, options: pickOptions(command.options, values) });
}
