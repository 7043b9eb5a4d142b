/**
 * What an approval shows and what "allow for this session" grants (docs/architecture.md §6: "the approval shows
 * the change (a diff for writes, the command and folder for bash); 'allow for this session' is a
 * logged decision").
 *
 * - {@link ApprovalPreview}: the change a pending call would make, computed by the tool after its
 *   arguments and preconditions were checked (so an approval is never asked for a call that would
 *   fail). Logged in `approval/asked` and sent to the UI and the terminal prompt.
 * - {@link SessionApprovalRule}: a standing permission logged as `approval/rule`. Rules are read
 *   back from the log, so a resumed session and a fork (whose history includes the rule) keep them.
 *   A bash rule names a command prefix and covers only simple commands (no `;`, `&&`, `|`,
 *   redirections, substitutions …), so `npm test` never lets `npm test; rm -rf ~` through.
 *
 * Pure: no Node, no DOM.
 */

/** The change a call would make, as shown for approval. */
export type ApprovalPreview =
  | {
      readonly kind: 'diff';
      /** Workspace-relative path of the file. */
      readonly path: string;
      /** True when the file does not exist yet. */
      readonly created: boolean;
      /** Unified diff (`diff` package format, 3 lines of context; may be cut, see `note`). */
      readonly patch: string;
      readonly added: number;
      readonly removed: number;
      /** Anything else the person should know (BOM or line endings kept, diff cut, …). */
      readonly note?: string;
    }
  | {
      readonly kind: 'command';
      /** The exact command line. */
      readonly command: string;
      /** Absolute folder it runs in. */
      readonly cwd: string;
      /** Prefix offered for "allow for this session" (see {@link suggestCommandPrefix}). */
      readonly suggestedPrefix: string;
    };

/** A standing "allow for this session" permission. */
export interface SessionApprovalRule {
  /** The tool it allows. */
  readonly toolName: string;
  /**
   * bash only: the command must be a simple command that starts with this prefix (at a word
   * boundary). Absent = every call of the tool.
   */
  readonly commandPrefix?: string;
}

/**
 * True when `command` is one simple command: outside quotes no `;`, `&`, `|`, `<`, `>`, `(`, `)`,
 * newline; and no command substitution (`$(…)`, backticks) even inside double quotes. Quoted text
 * (`python -c "print(1)"`) and escaped characters are fine.
 */
export function isSimpleCommand(command: string): boolean {
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '`' || (c === '$' && command[i + 1] === '(')) return false;
    if (quote === '"') {
      if (c === '"') quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      continue;
    }
    if (';&|<>()\n\r'.includes(c)) return false;
  }
  return quote === undefined;
}

/**
 * True when `command` is a simple command starting with `prefix` at a word boundary
 * (`npm test` allows `npm test`, `npm test -- -u`, not `npm tests` or `npm test && rm x`).
 */
export function commandMatchesPrefix(command: string, prefix: string): boolean {
  const p = prefix.trim();
  const c = command.trim();
  if (p === '' || !isSimpleCommand(c) || !c.startsWith(p)) return false;
  return c.length === p.length || /\s/.test(c[p.length]!);
}

/** Programs whose second word is a subcommand worth keeping in a suggested prefix. */
const SUBCOMMAND_PROGRAMS = new Set([
  'git',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'bun',
  'cargo',
  'go',
  'docker',
  'kubectl',
  'make',
  'pip',
  'pip3',
  'poetry',
  'uv',
  'dotnet',
  'mvn',
  'gradle',
  'bundle',
  'rake',
  'deno',
  'node',
  'python',
  'python3',
]);

/**
 * A prefix to offer for "allow for this session": the program, plus its subcommand for tools like
 * git or npm (`git status -s` → `git status`, `ls -la src` → `ls`). Empty for a compound command
 * (a rule could not cover it anyway).
 */
export function suggestCommandPrefix(command: string): string {
  const c = command.trim();
  if (!isSimpleCommand(c)) return '';
  const words = c.split(/\s+/);
  const first = words[0] ?? '';
  const second = words[1];
  if (second !== undefined && SUBCOMMAND_PROGRAMS.has(first.replace(/^.*\//, '')) && /^[A-Za-z0-9][\w:.-]*$/.test(second)) return `${first} ${second}`;
  return first;
}

/** True when `rule` covers a call of `toolName` with (already validated) `args`. */
export function ruleAllows(rule: SessionApprovalRule, toolName: string, args: unknown): boolean {
  if (rule.toolName !== toolName) return false;
  if (rule.commandPrefix === undefined) return true;
  const command = typeof args === 'object' && args !== null ? (args as { command?: unknown }).command : undefined;
  return typeof command === 'string' && commandMatchesPrefix(command, rule.commandPrefix);
}

/** A one-line description of a rule, for prompts and the timeline. */
export function describeRule(rule: SessionApprovalRule): string {
  return rule.commandPrefix !== undefined ? `${rule.toolName} commands starting with \`${rule.commandPrefix}\`` : `every ${rule.toolName} call`;
}
