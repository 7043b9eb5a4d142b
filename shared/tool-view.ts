/**
 * How a tool call is presented: a one-line summary of its arguments, which result view fits it
 * (terminal, diff, read, search, plain), and the presentation facts read from `tool/result.meta`
 * (exit code, file diffs, truncation).
 *
 * Meta shapes understood (Forkline built-ins and the reference runtime's tools):
 * - terminal: `{exitCode?, signal?, durationMs?, omittedBytes?, truncated?, timedOut?}` (also `exit_code`, `code`);
 * - diff: `{path, oldText, newText, partial?, omitted?}` or `{diffs: [{path, oldText, newText}, …]}`;
 * - read: `{path, …}`.
 *
 * Pure: no Node, no DOM.
 */
import { asArray, asNumber, asObject, asString } from './event-read.js';
import { shorten } from './text-cut.js';

export type ToolPresentation = 'terminal' | 'diff' | 'read' | 'search' | 'plain';

const TERMINAL_TOOLS = new Set(['bash', 'shell', 'run_command', 'exec', 'terminal']);
const DIFF_TOOLS = new Set(['write_file', 'edit_file', 'edit', 'write', 'str_replace_editor', 'apply_patch', 'multi_edit']);
const READ_TOOLS = new Set(['read_file', 'read', 'view']);
const SEARCH_TOOLS = new Set(['grep', 'glob', 'list_dir', 'ls', 'find', 'search']);

/** The result view that fits a tool, from its name and (when present) its result meta. */
export function toolPresentation(name: string, meta?: unknown): ToolPresentation {
  if (fileDiffs(meta).length > 0) return 'diff';
  const n = name.toLowerCase();
  if (TERMINAL_TOOLS.has(n)) return 'terminal';
  if (DIFF_TOOLS.has(n)) return 'diff';
  if (READ_TOOLS.has(n)) return 'read';
  if (SEARCH_TOOLS.has(n)) return 'search';
  return 'plain';
}

/** Parses a raw argument string; `undefined` when it is not a JSON object. */
export function parseToolArgs(raw: string): Record<string, unknown> | undefined {
  if (!raw.trim()) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return asObject(value) as Record<string, unknown> | undefined;
  } catch {
    return undefined;
  }
}

/** Argument keys that best describe a call, in preference order. */
const SUMMARY_KEYS = ['command', 'cmd', 'path', 'file_path', 'filePath', 'file', 'pattern', 'query', 'url', 'glob', 'dir', 'directory', 'id', 'name'];

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return shorten(flat, max);
}

/**
 * A short, single-line summary of a call's arguments: the command of a shell call, the path of
 * a file call, the pattern of a search, else the first string argument, else compact JSON.
 */
export function summarizeToolArgs(name: string, raw: string, max = 96): string {
  const args = parseToolArgs(raw);
  if (!args) return oneLine(raw, max);
  const n = name.toLowerCase();
  const keys = TERMINAL_TOOLS.has(n) ? ['command', 'cmd', ...SUMMARY_KEYS] : SEARCH_TOOLS.has(n) ? ['pattern', 'query', 'glob', ...SUMMARY_KEYS] : SUMMARY_KEYS;
  for (const key of keys) {
    const value = args[key];
    if (typeof value === 'string' && value.trim()) {
      if ((key === 'pattern' || key === 'query') && typeof args['path'] === 'string') return oneLine(`${value} in ${String(args['path'])}`, max);
      return oneLine(value, max);
    }
  }
  for (const value of Object.values(args)) if (typeof value === 'string' && value.trim()) return oneLine(value, max);
  const json = JSON.stringify(args);
  return json === '{}' ? '' : oneLine(json, max);
}

/** Pretty JSON of a raw argument string (the raw string itself when it does not parse). */
export function prettyArgs(raw: string): string {
  if (!raw.trim()) return '{}';
  try {
    return JSON.stringify(JSON.parse(raw) as unknown, null, 2);
  } catch {
    return raw;
  }
}

export interface FileDiff {
  readonly path: string;
  readonly oldText: string;
  readonly newText: string;
  /** Only the edited snippet is shown (the whole file was too large for the meta). */
  readonly partial?: boolean;
  /** The texts were too large to keep: no diff can be shown. */
  readonly omitted?: boolean;
}

/** File diffs carried by a result's meta (`{path, oldText, newText}` or `{diffs: [...]}`). */
export function fileDiffs(meta: unknown): FileDiff[] {
  const m = asObject(meta);
  if (!m) return [];
  const one = (o: ReturnType<typeof asObject>): FileDiff | undefined => {
    const path = asString(o?.['path']) ?? asString(o?.['filePath']) ?? asString(o?.['file']);
    const newText = asString(o?.['newText']);
    if (path === undefined || newText === undefined) return undefined;
    const diff: { -readonly [K in keyof FileDiff]: FileDiff[K] } = { path, oldText: asString(o?.['oldText']) ?? '', newText };
    if (o?.['partial'] === true) diff.partial = true;
    if (o?.['omitted'] === true) diff.omitted = true;
    return diff;
  };
  const list = asArray(m['diffs']);
  if (list.length > 0) return list.map((x) => one(asObject(x))).filter((x): x is FileDiff => x !== undefined);
  const single = one(m);
  return single ? [single] : [];
}

export interface TerminalFacts {
  readonly exitCode?: number;
  readonly durationMs?: number;
  /** Bytes of output left out of the result (head and tail kept). */
  readonly omittedBytes?: number;
  readonly signal?: string;
  readonly timedOut?: boolean;
  readonly truncated?: boolean;
}

/** Exit code, signal, timeout and truncation of a shell call, from its result meta. */
export function terminalFacts(meta: unknown): TerminalFacts {
  const m = asObject(meta);
  if (!m) return {};
  const facts: { -readonly [K in keyof TerminalFacts]: TerminalFacts[K] } = {};
  const exitCode = asNumber(m['exitCode']) ?? asNumber(m['exit_code']) ?? asNumber(m['code']);
  if (exitCode !== undefined) facts.exitCode = exitCode;
  const signal = asString(m['signal']);
  if (signal) facts.signal = signal;
  if (m['timedOut'] === true) facts.timedOut = true;
  const durationMs = asNumber(m['durationMs']);
  if (durationMs !== undefined) facts.durationMs = durationMs;
  const omitted = asNumber(m['omittedBytes']);
  if (omitted !== undefined && omitted > 0) facts.omittedBytes = omitted;
  if (m['truncated'] === true || facts.omittedBytes !== undefined) facts.truncated = true;
  return facts;
}
