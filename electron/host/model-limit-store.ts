/**
 * Limits learned from providers, remembered per endpoint + model (docs/architecture.md §5): the window an
 * overflow error stated, or the prompt size a silently truncating server reported. Kept in
 * `model-limits.json` in the data folder (mode 0600, atomic writes), so a new session or a resume
 * on the same endpoint + model starts with the window that works. Learned limits only ever lower
 * the window (see `resolveModelLimits`), and a person's setting wins over them.
 *
 * An overflow error states the window: it is in force at once. A truncated prompt is inferred from
 * one usage count, which a server that miscounts (or reports cached tokens where we do not read
 * them) can fake: it is kept as a suspicion and comes into force only when a second request, in
 * any session, is counted the same way. Settings lists both, and a person can forget either.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { limitKey } from '../llm/model-limits.js';

/** One remembered limit: tokens, how it was learned, when (epoch ms). */
export interface LearnedLimit {
  readonly contextWindow: number;
  readonly how: 'overflow-error' | 'truncated-prompt';
  readonly at: number;
  /** Truncated prompts seen for it (absent: 1; an overflow error needs none). */
  readonly seen?: number;
}

/** Truncated prompts an endpoint + model must show before their window is in force. */
export const TRUNCATIONS_TO_LEARN = 2;

/** Whether a remembered limit is used as the window (an overflow error, or a confirmed truncation). */
export function limitInForce(limit: LearnedLimit): boolean {
  return limit.how === 'overflow-error' || (limit.seen ?? 1) >= TRUNCATIONS_TO_LEARN;
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

  /** The learned window in force for an endpoint + model, tokens (a truncation seen once is not). */
  get(baseUrl: string, model: string): LearnedLimit | undefined {
    const limit = this.learned[limitKey(baseUrl, model)];
    return limit !== undefined && limitInForce(limit) ? limit : undefined;
  }

  /** Every remembered limit, in force or suspected, by endpoint + model key (`baseUrl|model`). */
  all(): Readonly<Record<string, LearnedLimit>> {
    return this.learned;
  }

  /**
   * Remembers `contextWindow` unless an equal or lower one is in force. A truncated prompt counts
   * one sighting (the window kept is the lowest seen); it is in force from the
   * {@link TRUNCATIONS_TO_LEARN}th on. Returns whether anything changed.
   */
  learn(baseUrl: string, model: string, contextWindow: number, how: LearnedLimit['how'], at: number = Date.now()): boolean {
    const key = limitKey(baseUrl, model);
    const known = this.learned[key];
    if (known !== undefined && limitInForce(known) && known.contextWindow <= contextWindow) return false;
    let next: LearnedLimit;
    if (how === 'truncated-prompt') {
      const seen = known?.how === 'truncated-prompt' ? (known.seen ?? 1) + 1 : 1;
      next = { contextWindow: Math.min(contextWindow, known?.contextWindow ?? contextWindow), how, at, seen };
    } else next = { contextWindow, how, at };
    this.learned = { ...this.learned, [key]: next };
    this.save();
    return true;
  }

  /** Forgets what was learned for an endpoint + model (Settings' "Forget"). Returns whether there was anything. */
  forget(baseUrl: string, model: string): boolean {
    const key = limitKey(baseUrl, model);
    if (!(key in this.learned)) return false;
    const { [key]: _gone, ...rest } = this.learned;
    this.learned = rest;
    this.save();
    return true;
  }

  private save(): void {
    if (this.file === undefined) return;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ version: 1, learned: this.learned } satisfies FileShape, null, 2) + '\n', { mode: 0o600 });
      renameSync(tmp, this.file);
    } catch (error) {
      console.error(`could not save learned model limits to ${this.file}:`, error);
    }
  }
}
