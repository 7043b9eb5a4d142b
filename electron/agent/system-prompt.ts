/**
 * The system prompt (docs/architecture.md §4, §8b): identity, workspace facts (cwd, platform, date), tool
 * guidance, working style, then the project instructions (AGENTS.md …) last. Sections always appear
 * in the same fixed order and contain nothing that changes while a session lives — the date is the
 * day the session's first request was made, not today — so the request prefix stays byte-stable
 * from step to step and across resumes, and the provider's prefix cache hits.
 */
import type { InstructionFile } from './project-instructions.js';

export interface SystemPromptFacts {
  /** Absolute workspace path. */
  readonly cwd: string;
  /** e.g. `linux`, `darwin`, `win32`. */
  readonly platform: string;
  /**
   * Local date as `YYYY-MM-DD` of the session's first request (no time of day, and not today's date:
   * either would change the prefix of a later request and break the cache).
   */
  readonly date: string;
  readonly model: string;
  /** Names of the tools offered in this request, sorted. */
  readonly toolNames: readonly string[];
  /** Project instruction files in force, least specific first (see project-instructions.ts). */
  readonly instructions?: readonly InstructionFile[];
}

interface Section {
  readonly title: string;
  readonly body: string;
}

const IDENTITY = `You are Forkline, a coding agent working inside the user's project on their machine. You read code, run commands and edit files with the tools provided, and you verify your changes by running the code or its tests.`;

const TOOL_GUIDANCE: Readonly<Record<string, string>> = {
  read_file: 'read_file{path, offset?, limit?}: read a text file (lines are numbered; the numbers are not part of the file). Read a file before you edit or overwrite it.',
  write_file: 'write_file{path, content}: create a file or replace its whole content. An existing file must have been read first.',
  edit_file:
    'edit_file{path, old_string, new_string, replace_all?}: replace an exact string in a file you have read. old_string must match exactly once (include surrounding lines to make it unique) unless replace_all is true.',
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
      body: [`Workspace (current directory): ${facts.cwd}`, `Platform: ${facts.platform}`, `Session started: ${facts.date}`, `Model: ${facts.model}`].join('\n'),
    },
    {
      title: 'Tools',
      body: facts.toolNames.map((name) => TOOL_GUIDANCE[name] ?? `${name}: see its schema.`).join('\n'),
    },
    { title: 'Working style', body: WORKING_STYLE },
  ];
  if (facts.instructions && facts.instructions.length > 0) sections.push({ title: 'Project instructions', body: renderInstructions(facts.instructions) });
  return sections.map((s) => `# ${s.title}\n${s.body}`).join('\n\n');
}

const INSTRUCTIONS_PREAMBLE =
  "The user and the project keep instructions for you in these files. Follow them. Each applies to files in its folder and below; where two conflict, the later (more specific) one wins, and the user's own messages win over all of them.";

function renderInstructions(files: readonly InstructionFile[]): string {
  const parts = files.map((f) => `## ${f.shownPath}${f.scope === 'user' ? ' (user instructions)' : ''}${f.truncated ? ' (cut at 32 KiB)' : ''}\n${f.text}`);
  return [INSTRUCTIONS_PREAMBLE, ...parts].join('\n\n');
}

/** Local date `YYYY-MM-DD` of an epoch-ms time. */
export function localDate(epochMs: number): string {
  const d = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
