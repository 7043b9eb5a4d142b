/**
 * Limits learned from providers, remembered per endpoint + model (docs/architecture.md §5): the window an
 * overflow error stated, or the prompt size a silently truncating server reported. Kept in
 * `model-limits.json` in the data folder (mode 0600, atomic writes), so a new session or a resume
 * on the same endpoint + model starts with the window that works. Learned limits only ever lower
 * the window (see `resolveModelLimits`), and a person's setting wins over them.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { limitKey } from '../llm/model-limits.js';

/** One remembered limit: tokens, how it was learned, when (epoch ms). */
export interface LearnedLimit {
  readonly contextWindow: number;
  readonly how: 'overflow-error' | 'truncated-prompt';
  readonly at: number;
}

interface FileShape {
  readonly version: 1;
  readonly learned: { readonly [key: string]: LearnedLimit };
}

export class ModelLimitStore {
  private learned: Record<string, LearnedLimit>;

  /** `file` undefined keeps the limits in memory only. An unreadable file is left alone (and reported). */
  constructor(private readonly file: string | undefined) {
    this.learned = {};
    if (file !== undefined && existsSync(file)) {
      try {
        const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<FileShape>;
        for (const [key, value] of Object.entries(parsed.learned ?? {})) {
          if (typeof value?.contextWindow === 'number' && Number.isSafeInteger(value.contextWindow) && value.contextWindow > 0) this.learned[key] = value;
        }
      } catch (error) {
        console.error(`${file} is unreadable; learned model limits start empty (the file is left as it is):`, error);
      }
    }
  }

  /** The learned window of an endpoint + model, tokens. */
  get(baseUrl: string, model: string): LearnedLimit | undefined {
    return this.learned[limitKey(baseUrl, model)];
  }

  /** Remembers `contextWindow` unless an equal or lower one is known. Returns whether it changed. */
  learn(baseUrl: string, model: string, contextWindow: number, how: LearnedLimit['how'], at: number = Date.now()): boolean {
    const key = limitKey(baseUrl, model);
    const known = this.learned[key];
    if (known !== undefined && known.contextWindow <= contextWindow) return false;
    this.learned = { ...this.learned, [key]: { contextWindow, how, at } };
    if (this.file !== undefined) {
      try {
        mkdirSync(dirname(this.file), { recursive: true });
        const tmp = `${this.file}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify({ version: 1, learned: this.learned } satisfies FileShape, null, 2) + '\n', { mode: 0o600 });
        renameSync(tmp, this.file);
      } catch (error) {
        console.error(`could not save learned model limits to ${this.file}:`, error);
      }
    }
    return true;
  }
}
