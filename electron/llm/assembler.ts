/**
 * Folds a stream of {@link StreamChunk}s (live, or read back from `assistant/chunk` events) into the
 * content of one assistant message (reference runtime `packages/llm/llm/src/assembler.ts`, digest
 * §5.2). Pure and synchronous.
 *
 * Rules: blocks are keyed by `index` and kept in first-seen order; delta-only streams (no
 * block-start/-end) still assemble; `block-end` is authoritative and freezes its block (the first
 * close wins, later deltas or closes for that index are ignored); tool-call deltas concatenate
 * `argumentsDelta`, the latest non-empty `id` wins and a `name` is set once (never cleared by an
 * empty one); a missing `finish` counts as `stop`; chunks after `finish` are ignored; a
 * `max-tokens` finish drops every tool-call block (a truncated call must never run, FIELD-NOTES
 * fault class 6).
 */
import type { BlockType, FinishReason, StreamChunk, TokenUsage } from '../../shared/chunks.js';
import type { AssistantBlock } from '../../shared/messages.js';

interface Entry {
  readonly index: number;
  readonly type: BlockType;
  text: string;
  id: string;
  name: string;
  closed: AssistantBlock | undefined;
}

/** The assembled response of one attempt. */
export interface AssembledResponse {
  /** Blocks in first-seen index order (tool-call blocks removed for `max-tokens`). */
  readonly blocks: AssistantBlock[];
  readonly usage?: TokenUsage;
  readonly finish: FinishReason;
}

/** Accumulates chunks of one attempt; create one per attempt. */
export class BlockAssembler {
  private readonly entries = new Map<number, Entry>();
  private usage: TokenUsage | undefined;
  private finish: FinishReason | undefined;

  /** Adds one chunk. Never throws for odd input (unknown indexes open blocks, duplicates are ignored). */
  push(chunk: StreamChunk): void {
    if (this.finish !== undefined) return;
    switch (chunk.type) {
      case 'block-start':
        this.entry(chunk.index, chunk.blockType);
        return;
      case 'text-delta':
      case 'reasoning-delta': {
        const entry = this.entry(chunk.index, chunk.type === 'text-delta' ? 'text' : 'reasoning');
        if (!entry.closed) entry.text += chunk.text;
        return;
      }
      case 'tool-call-delta': {
        const entry = this.entry(chunk.index, 'tool-call');
        if (entry.closed) return;
        if (chunk.id !== '') entry.id = chunk.id;
        if (chunk.name !== undefined && chunk.name !== '') entry.name = chunk.name;
        entry.text += chunk.argumentsDelta;
        return;
      }
      case 'block-end': {
        const entry = this.entry(chunk.index, chunk.block.type);
        entry.closed ??= chunk.block;
        return;
      }
      case 'usage':
        this.usage = chunk.usage;
        return;
      case 'finish':
        this.finish = chunk.reason;
        return;
      default: {
        const never: never = chunk;
        void never;
      }
    }
  }

  /** Adds several chunks in order. */
  pushAll(chunks: Iterable<StreamChunk>): this {
    for (const chunk of chunks) this.push(chunk);
    return this;
  }

  /** The finish seen, if any (without the `stop` default). */
  get finishReason(): FinishReason | undefined {
    return this.finish;
  }

  /**
   * The assembled response: blocks (closed ones as their `block-end` says, open ones from their
   * deltas), usage, and the finish (`stop` when none was seen). `max-tokens` drops tool-call blocks.
   */
  result(): AssembledResponse {
    const finish: FinishReason = this.finish ?? { kind: 'stop' };
    const blocks: AssistantBlock[] = [];
    for (const entry of this.entries.values()) {
      const block = entry.closed ?? openBlock(entry);
      if (finish.kind === 'max-tokens' && block.type === 'tool-call') continue;
      blocks.push(block);
    }
    return this.usage === undefined ? { blocks, finish } : { blocks, usage: this.usage, finish };
  }

  /**
   * What a cancelled stream leaves for an `interrupted` assistant message: only text and reasoning
   * blocks (open or closed) whose text is not blank, in order. Tool calls are dropped.
   */
  interruptedBlocks(): AssistantBlock[] {
    const out: AssistantBlock[] = [];
    for (const entry of this.entries.values()) {
      const block = entry.closed ?? openBlock(entry);
      if ((block.type === 'text' || block.type === 'reasoning') && block.text.trim() !== '') out.push(block);
    }
    return out;
  }

  private entry(index: number, type: BlockType): Entry {
    let entry = this.entries.get(index);
    if (!entry) {
      entry = { index, type, text: '', id: '', name: '', closed: undefined };
      this.entries.set(index, entry);
    }
    return entry;
  }
}

function openBlock(entry: Entry): AssistantBlock {
  if (entry.type === 'tool-call') return { type: 'tool-call', id: entry.id !== '' ? entry.id : `call-${entry.index}`, name: entry.name, arguments: entry.text };
  return { type: entry.type, text: entry.text };
}

/** Convenience: assembles a whole chunk list at once. */
export function assembleChunks(chunks: Iterable<StreamChunk>): AssembledResponse {
  return new BlockAssembler().pushAll(chunks).result();
}
