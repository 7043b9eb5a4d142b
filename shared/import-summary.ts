/**
 * What an import of another agent's session log produced (docs/importing.md): the formats we read and the
 * summary the CLI prints and the UI toast shows — one formatter for both, so they say the same.
 *
 * Pure: no Node, no DOM.
 */

/** Format ids recorded in `SessionHeader.origin.format`. */
export type ImportFormatId = 'forkline' | 'deepseek-harness' | 'claude-code' | 'codex' | 'openhands' | 'gemini-cli' | 'cline' | 'opencode';

export interface ImportFormatInfo {
  readonly id: ImportFormatId;
  /** What a person calls it. */
  readonly label: string;
  /** Where such a file usually is, in plain words. */
  readonly where: string;
}

/** Every format we read, in the order detection tries them. */
export const IMPORT_FORMATS: readonly ImportFormatInfo[] = [
  { id: 'forkline', label: 'Forkline export', where: 'forkline export / the Export button (.jsonl)' },
  { id: 'deepseek-harness', label: 'DeepSeek Harness session', where: 'session.jsonl of the reference runtime (format version 0)' },
  { id: 'claude-code', label: 'Claude Code transcript', where: '~/.claude/projects/<project>/<session>.jsonl' },
  { id: 'codex', label: 'Codex CLI rollout', where: '~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl' },
  { id: 'openhands', label: 'OpenHands trajectory or event stream', where: 'a trajectory .json (event array) or one event per line' },
  { id: 'gemini-cli', label: 'Gemini CLI chat', where: '~/.gemini/tmp/<project>/chats/session-*.json or .jsonl' },
  { id: 'cline', label: 'Cline / Roo Code task', where: 'a task folder holding api_conversation_history.json and ui_messages.json' },
  { id: 'opencode', label: 'opencode session', where: "opencode's storage folder (session/, message/, part/) or a session file in it" },
];

/** `forkline (Forkline export), deepseek-harness (…), …` for messages. */
export function importFormatList(): string {
  return IMPORT_FORMATS.map((f) => `${f.id} (${f.label})`).join(', ');
}

/** Token totals over the imported assistant messages (only what the source reported). */
export interface ImportTokens {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
  readonly reasoning?: number;
}

/** One input line (or JSON array element) that was not imported, and why. */
export interface SkippedLine {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly reason: string;
}

export interface ImportSummary {
  readonly sessionId: string;
  readonly title?: string;
  readonly format: ImportFormatId;
  /** The source's own format or program version, when it states one. */
  readonly formatVersion?: string;
  /** Base name of the file. */
  readonly file?: string;
  /** Events stored. */
  readonly events: number;
  readonly turns: number;
  readonly steps: number;
  /** Model-visible user-role messages that are not tool results (prompts and injected context). */
  readonly userMessages: number;
  readonly assistantMessages: number;
  /** Tool calls the model made (logged `tool/call`s). */
  readonly toolCalls: number;
  /** Tool results the source recorded. */
  readonly toolResults: number;
  /** Calls the source left without a result; each got an `outcome unknown` result so the history stays valid. */
  readonly unansweredCalls: number;
  /** Token totals, when the source reports any. */
  readonly tokens?: ImportTokens;
  /** Records kept as raw rows (`import/foreign`). */
  readonly rawRecords: number;
  /** Lines (or array elements) read from the file. */
  readonly linesRead: number;
  /** Lines not imported, with the reason (at most {@link MAX_SKIPPED_LISTED} listed; see `skippedCount`). */
  readonly skipped: readonly SkippedLine[];
  readonly skippedCount: number;
  /** Everything else the importer noticed, in plain words. */
  readonly warnings: readonly string[];
  /**
   * Why continuing this session would not send the history the source's model saw (unknown
   * model-visible records, images, …). Empty when the imported model view is complete.
   */
  readonly modelViewNotes: readonly string[];
}

/** How many skipped lines a summary lists by number. */
export const MAX_SKIPPED_LISTED = 20;

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}

/** `12 in, 3 out, 40 cached` — only the counts the source reported. */
export function formatImportTokens(tokens: ImportTokens): string {
  const parts = [`${tokens.input.toLocaleString('en-US')} in`, `${tokens.output.toLocaleString('en-US')} out`];
  if (tokens.cacheRead !== undefined) parts.push(`${tokens.cacheRead.toLocaleString('en-US')} cached`);
  if (tokens.cacheWrite !== undefined) parts.push(`${tokens.cacheWrite.toLocaleString('en-US')} cache-written`);
  if (tokens.reasoning !== undefined) parts.push(`${tokens.reasoning.toLocaleString('en-US')} reasoning`);
  return parts.join(', ');
}

/** One line for a toast title or a list: `Claude Code transcript → 3 turns, 12 tool calls`. */
export function importHeadline(summary: ImportSummary): string {
  const info = IMPORT_FORMATS.find((f) => f.id === summary.format);
  // A bare number is a format's schema version ("v0"); a dotted one is the writer's release.
  const v = summary.formatVersion;
  const version = v ? (/^\d+$/.test(v) ? ` v${v}` : ` ${v}`) : '';
  return `${info?.label ?? summary.format}${version} → ${plural(summary.turns, 'turn')}, ${plural(summary.toolCalls, 'tool call')}`;
}

/**
 * The summary as plain lines (the CLI prints them; the UI toast shows the same lines): what was
 * imported, the counts, tokens where known, lines skipped with reasons, and notes.
 */
export function formatImportSummary(summary: ImportSummary): string[] {
  const lines: string[] = [];
  const from = summary.file ? ` from ${summary.file}` : '';
  lines.push(`${importHeadline(summary)}${from}`);
  lines.push(`session ${summary.sessionId}${summary.title ? ` — ${summary.title}` : ''}`);
  lines.push(
    [
      plural(summary.turns, 'turn'),
      plural(summary.steps, 'step'),
      plural(summary.userMessages, 'user message'),
      plural(summary.assistantMessages, 'assistant message'),
      `${plural(summary.toolCalls, 'tool call')} / ${plural(summary.toolResults, 'result')}`,
    ].join(' · '),
  );
  if (summary.unansweredCalls > 0) lines.push(`${plural(summary.unansweredCalls, 'call')} had no result in the log (closed as outcome unknown)`);
  lines.push(summary.tokens ? `tokens: ${formatImportTokens(summary.tokens)}` : 'tokens: not recorded in this log');
  lines.push(
    `${plural(summary.linesRead, 'line')} read, ${plural(summary.skippedCount, 'line')} skipped, ${plural(summary.rawRecords, 'record')} kept as raw rows, ${plural(summary.events, 'event')} stored`,
  );
  for (const s of summary.skipped) lines.push(`skipped line ${s.line}: ${s.reason}`);
  if (summary.skippedCount > summary.skipped.length) lines.push(`… and ${summary.skippedCount - summary.skipped.length} more skipped lines`);
  for (const w of summary.warnings) lines.push(`warning: ${w}`);
  for (const n of summary.modelViewNotes) lines.push(`model view: ${n}`);
  return lines;
}

/**
 * The seq of the first record of an imported log that changed what the source's model saw and is
 * not replayed here (an `import/foreign` marked `modelVisible`), or undefined when there is none. A
 * continuation (fork) must cut before it, else the model would be sent a different history than
 * the source's model saw.
 */
export function firstUnreplayableSeq(events: readonly { readonly seq: number; readonly type: string; readonly data: unknown }[]): number | undefined {
  for (const e of events) {
    if (e.type === 'import/foreign' && (e.data as { modelVisible?: unknown } | null)?.modelVisible === true) return e.seq;
  }
  return undefined;
}
