/** One benchmark result, printed as a `BENCH {json}` line that scripts/bench.js collects. */
export interface BenchResult {
  readonly name: string;
  /** What the figures measure, e.g. "events/s" or "ms". */
  readonly unit: string;
  readonly ours: number;
  readonly baseline: number;
  readonly baselineName: string;
  /** ours / baseline. */
  readonly ratio: number;
  readonly goal: string;
  readonly met: boolean;
  readonly detail?: string;
}

export function report(result: BenchResult): void {
  process.stdout.write(`BENCH ${JSON.stringify(result)}\n`);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (!g) throw new Error('run with node --expose-gc');
  g();
  g();
}
