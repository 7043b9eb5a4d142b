/**
 * The system prompt (DESIGN §4): identity, workspace facts (cwd, platform, date), tool guidance.
 * Sections always appear in the same fixed order and contain nothing that changes within a day, so
 * the request prefix stays byte-stable from step to step and the provider's prefix cache hits.
 */

export interface SystemPromptFacts {
  /** Absolute workspace path. */
  readonly cwd: string;
  /** e.g. `linux`, `darwin`, `win32`. */
  readonly platform: string;
  /** Local date as `YYYY-MM-DD` (no time of day: it would break the cache every request). */
  readonly date: string;
  readonly model: string;
  /** Names of the tools offered in this request, sorted. */
  readonly toolNames: readonly string[];
}

interface Section {
  readonly title: string;
  readonly body: string;
}

const IDENTITY = `You are Forkline, a coding agent working inside the user's project on their machine. You read code, run commands and edit files with the tools provided, and you verify your changes by running the code or its tests.`;

const TOOL_GUIDANCE: Readonly<Record<string, string>> = {
  read_file: 'read_file{path, offset?, limit?}: read a text file (lines are numbered; the numbers are not part of the file). Read a file before you edit or overwrite it.',
  write_file: 'write_file{path, content}: create a file or replace its whole content. An existing file must have been read first.',
  edit_file: 'edit_file{path, old_string, new_string, replace_all?}: replace an exact string in a file you have read. old_string must match exactly once (include surrounding lines to make it unique) unless replace_all is true.',
  list_dir: 'list_dir{path}: list a directory (folders end with /).',
  glob: 'glob{pattern}: find files by glob pattern, relative to the workspace.',
  grep: 'grep{pattern, path?, glob?}: search file contents with a regular expression.',
  bash: 'bash{command, timeout_ms?}: run a shell command in the workspace (bash -c). Use it to run tests and programs. The output and exit code are returned.',
  todo_write: 'todo_write{todos}: keep a short task list for multi-step work (whole list each time).',
};

const WORKING_STYLE = [
  'Keep answers brief and factual.',
  'Paths are relative to the workspace; you cannot touch files outside it.',
  'Prefer small, targeted edits. After changing code, run the relevant test or program to check the result.',
  'If a tool result says an earlier call has an unknown outcome (the app was interrupted), verify the current state before repeating anything that changes it.',
].join('\n');

/** Renders the system prompt; the same facts always give the same bytes. */
export function renderSystemPrompt(facts: SystemPromptFacts): string {
  const sections: Section[] = [
    { title: 'Identity', body: IDENTITY },
    {
      title: 'Environment',
      body: [`Workspace (current directory): ${facts.cwd}`, `Platform: ${facts.platform}`, `Date: ${facts.date}`, `Model: ${facts.model}`].join('\n'),
    },
    {
      title: 'Tools',
      body: facts.toolNames.map((name) => TOOL_GUIDANCE[name] ?? `${name}: see its schema.`).join('\n'),
    },
    { title: 'Working style', body: WORKING_STYLE },
  ];
  return sections.map((s) => `# ${s.title}\n${s.body}`).join('\n\n');
}

/** Local date `YYYY-MM-DD` of an epoch-ms time. */
export function localDate(epochMs: number): string {
  const d = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
