/**
 * The built-in tools (docs/architecture.md §6), one per file under `builtin/`. The registry takes this array.
 */
import { createBashTool, type BashToolOptions } from './builtin/bash.js';
import { createEditFileTool } from './builtin/edit-file.js';
import { createGlobTool } from './builtin/glob.js';
import { createGrepTool } from './builtin/grep.js';
import { createListDirTool } from './builtin/list-dir.js';
import { createReadFileTool } from './builtin/read-file.js';
import { createTodoWriteTool } from './builtin/todo-write.js';
import { createWriteFileTool } from './builtin/write-file.js';
import type { ToolDefinition } from './tool.js';

export type { BashToolOptions } from './builtin/bash.js';

/** Options for {@link createBuiltinTools}. */
export interface BuiltinToolsOptions {
  readonly bash?: BashToolOptions;
}

/**
 * All built-in tool definitions, in a fixed order: read_file, write_file, edit_file, list_dir,
 * glob, grep, bash, todo_write. Each call returns fresh definitions (they hold no state; per-session
 * state lives in the ToolContext, e.g. `ctx.files`).
 */
export function createBuiltinTools(options: BuiltinToolsOptions = {}): ToolDefinition[] {
  return [createReadFileTool(), createWriteFileTool(), createEditFileTool(), createListDirTool(), createGlobTool(), createGrepTool(), createBashTool(options.bash), createTodoWriteTool()];
}
