/**
 * One module per CLI command (electron/cli/commands/<name>.ts), each a row of the command table
 * (electron/cli/command-table.ts): every file has a row and every row a file; each module exports
 * `command` with its option spec and run function; every flag of every spec is in the one strict
 * spec cli.ts parses with (electron/cli/cli-options.ts), defined the same way, and no flag there is
 * unused; every command but help has its lines in the usage text.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_OPTIONS, GLOBAL_FLAGS } from '../../../electron/cli/cli-options.js';
import { pickOptions, type OptionSpec } from '../../../electron/cli/command.js';
import { COMMAND_NAMES, COMMAND_TABLE, isCommandName } from '../../../electron/cli/command-table.js';
import { USAGE } from '../../../electron/cli/usage.js';

const DIR = join(import.meta.dirname, '../../../electron/cli/commands');

describe('the command table', () => {
  it('has a row for every file in electron/cli/commands/ and a file for every row', () => {
    expect(
      readdirSync(DIR)
        .map((f) => f.replace(/\.ts$/, ''))
        .sort(),
    ).toEqual([...COMMAND_NAMES].sort());
  });

  it('knows its own names only (not Object.prototype keys)', () => {
    expect(isCommandName('ls')).toBe(true);
    expect(isCommandName('constructor')).toBe(false);
    expect(isCommandName('toString')).toBe(false);
  });

  it('puts every command but help in the usage text, in table order, each block starting with its name', () => {
    let at = -1;
    for (const name of COMMAND_NAMES) {
      const lines = COMMAND_TABLE[name].usage;
      if (name === 'help') {
        expect(lines).toEqual([]);
        continue;
      }
      expect(lines[0], name).toMatch(new RegExp(`^ {2}forkline ${name}( |$)`));
      const found = USAGE.indexOf(lines.join('\n'));
      expect(found, name).toBeGreaterThan(at);
      at = found;
    }
    expect(USAGE).toMatch(/^Usage:$/m);
    expect(USAGE).toMatch(/^Model options \(run, resume, serve\):$/m);
  });
});

describe('CLI command modules', () => {
  it('every command spec is in CLI_OPTIONS flag for flag, and every flag there belongs to a command or is global', async () => {
    const used = new Set<string>(GLOBAL_FLAGS);
    for (const name of COMMAND_NAMES) {
      const { command } = await COMMAND_TABLE[name].load();
      expect(typeof command.run, name).toBe('function');
      for (const [flag, def] of Object.entries(command.options)) {
        expect((CLI_OPTIONS as OptionSpec)[flag], `${name} --${flag}`).toEqual(def);
        used.add(flag);
      }
    }
    expect([...used].sort()).toEqual(Object.keys(CLI_OPTIONS).sort());
  }, 60_000);

  it('a command sees only its own flags', () => {
    expect(pickOptions({ json: { type: 'boolean' }, out: { type: 'string' } }, { json: true, port: '3', out: 'x' })).toEqual({ json: true, out: 'x' });
  });
});
