/**
 * RecordIdIndex: record id → small integer for every record of a long log, in about 20 bytes an
 * entry instead of a `Map<string, number>`'s ~70 (a 36-character string key plus the entry).
 *
 * Claude Code links records by canonical lowercase UUIDs (RFC 9562 §4 text form,
 * `8-4-4-4-12` hex digits); those are kept as exact 128-bit keys in an open-addressing table of
 * typed arrays (linear probing, at most 3/4 full, doubled when it would be fuller). Any other id —
 * uppercase, braced, arbitrary text — goes to an ordinary Map, so the index is exact for every id.
 * Values are integers in [0, 2^31).
 */

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EMPTY = -1;
const FIRST_CAPACITY = 1 << 10;

export class RecordIdIndex {
  /** Four 32-bit words of each slot's UUID. */
  private keys = new Uint32Array(4 * FIRST_CAPACITY);
  /** Each slot's value, EMPTY when the slot is free. */
  private values = new Int32Array(FIRST_CAPACITY).fill(EMPTY);
  private capacity = FIRST_CAPACITY;
  private used = 0;
  private readonly other = new Map<string, number>();
  private readonly words = new Uint32Array(4);

  /** Ids held. */
  get size(): number {
    return this.used + this.other.size;
  }

  /** Sets `id`'s value (replacing an earlier one). @throws RangeError for a value outside [0, 2^31). */
  set(id: string, value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) throw new RangeError(`record index values are integers in [0, 2^31), not ${value}`);
    if (!this.parse(id)) {
      this.other.set(id, value);
      return;
    }
    if ((this.used + 1) * 4 > this.capacity * 3) this.grow();
    const slot = this.find(this.words);
    if (this.values[slot] === EMPTY) {
      this.keys.set(this.words, slot * 4);
      this.used++;
    }
    this.values[slot] = value;
  }

  /** `id`'s value, or undefined. */
  get(id: string): number | undefined {
    if (!this.parse(id)) return this.other.get(id);
    const value = this.values[this.find(this.words)]!;
    return value === EMPTY ? undefined : value;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Reads a canonical UUID into `this.words`; false for any other id. */
  private parse(id: string): boolean {
    if (id.length !== 36 || !CANONICAL_UUID.test(id)) return false;
    const w = this.words;
    w[0] = parseInt(id.slice(0, 8), 16);
    w[1] = parseInt(id.slice(9, 13) + id.slice(14, 18), 16);
    w[2] = parseInt(id.slice(19, 23) + id.slice(24, 28), 16);
    w[3] = parseInt(id.slice(28, 36), 16);
    return true;
  }

  /** The slot holding `key`, or the free slot where it belongs. */
  private find(key: Uint32Array): number {
    const mask = this.capacity - 1;
    let slot = (Math.imul(key[0]! ^ key[3]!, 0x9e3779b1) ^ Math.imul(key[1]! ^ key[2]!, 0x85ebca77)) >>> 0;
    for (slot &= mask; ; slot = (slot + 1) & mask) {
      if (this.values[slot] === EMPTY) return slot;
      const k = slot * 4;
      if (this.keys[k] === key[0] && this.keys[k + 1] === key[1] && this.keys[k + 2] === key[2] && this.keys[k + 3] === key[3]) return slot;
    }
  }

  private grow(): void {
    const keys = this.keys;
    const values = this.values;
    const old = this.capacity;
    this.capacity = old * 2;
    this.keys = new Uint32Array(4 * this.capacity);
    this.values = new Int32Array(this.capacity).fill(EMPTY);
    const key = new Uint32Array(4);
    for (let s = 0; s < old; s++) {
      if (values[s] === EMPTY) continue;
      key.set(keys.subarray(s * 4, s * 4 + 4));
      const slot = this.find(key);
      this.keys.set(key, slot * 4);
      this.values[slot] = values[s]!;
    }
  }
}
