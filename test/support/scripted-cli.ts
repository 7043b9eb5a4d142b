/**
 * The scripted-server setup the CLI integration tests share: a scripted model server
 * (test/support/scripted-llm), an empty data folder, and a workspace folder (optionally a copy of an
 * example, e.g. `examples/fix-sum`). Open it in `beforeAll`, close it in `afterAll`:
 *
 *   beforeAll(async () => ({ llm, dataDir, work } = await openScriptedCli('forkline-cli', { example: 'examples/fix-sum' })));
 *   afterAll(() => closeScriptedCli({ llm, dataDir, work }));
 */
import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './cli-process.js';
import { startScriptedLlm, type ScriptedLlm, type ScriptedLlmOptions } from './scripted-llm/index.js';

export interface ScriptedCli {
  readonly llm: ScriptedLlm;
  /** Passed as `--data-dir`. */
  readonly dataDir: string;
  /** The workspace (`--cwd`). */
  readonly work: string;
}

export interface ScriptedCliOptions {
  /** Options of the scripted server (models, strict thinking, …). */
  readonly llm?: ScriptedLlmOptions;
  /** A folder under the repository copied into the workspace. */
  readonly example?: string;
}

/** Starts the scripted server and makes the two temp folders, named `PREFIX-…` and `PREFIX-ws-…` (the workspace path resolved through symlinks). */
export async function openScriptedCli(prefix: string, options: ScriptedCliOptions = {}): Promise<ScriptedCli> {
  const llm = await startScriptedLlm(options.llm ?? {});
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const work = realpathSync(mkdtempSync(join(tmpdir(), `${prefix}-ws-`)));
  if (options.example !== undefined) cpSync(join(ROOT, options.example), work, { recursive: true });
  return { llm, dataDir, work };
}

/** Closes the server and removes both folders (what `openScriptedCli` made; tolerates a setup that never finished). */
export async function closeScriptedCli(setup: Partial<ScriptedCli>): Promise<void> {
  await setup.llm?.close();
  if (setup.dataDir !== undefined) rmSync(setup.dataDir, { recursive: true, force: true });
  if (setup.work !== undefined) rmSync(setup.work, { recursive: true, force: true });
}
