/**
 * Display formatting shared by the timeline views: durations, token counts, usage summaries,
 * timestamps, file sizes. Pure: no Node, no DOM.
 */
import type { TokenUsage } from './chunks.js';

/** Human duration: `850 ms`, `4.2 s`, `3 m 05 s`. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 0) return `${Math.round(ms)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${m} m ${String(s).padStart(2, '0')} s`;
}

/** Compact token count: `912`, `15.1k`, `1.2M`. */
export function formatTokens(n: number | undefined): string {
  if (n === undefined) return '';
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** File size in bytes, decimal units as file managers show them: `512 B`, `12.3 KB`, `4.56 MB`, `1.20 GB`. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 1000) return `${Math.max(0, Math.round(Number.isFinite(n) ? n : 0))} B`;
  const units = ['KB', 'MB', 'GB', 'TB'] as const;
  let value = n / 1000;
  let unit = 0;
  while (value >= 999.95 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0)} ${units[unit]}`;
}

/** `in 2.9k · cached 1.28k · out 91 (46 reasoning)` */
export function usageLabel(usage: TokenUsage | undefined): string {
  if (!usage) return '';
  // Input is the total billed (uncached + cache reads + cache writes), with its cached parts named.
  const total = usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
  const cachedParts = [usage.cacheReadTokens ? `${formatTokens(usage.cacheReadTokens)} cached` : '', usage.cacheWriteTokens ? `${formatTokens(usage.cacheWriteTokens)} cache-write` : ''].filter(
    Boolean,
  );
  const parts = [`in ${formatTokens(total)}${cachedParts.length > 0 ? ` (${cachedParts.join(', ')})` : ''}`];
  parts.push(`out ${formatTokens(usage.outputTokens)}${usage.reasoningTokens ? ` (${formatTokens(usage.reasoningTokens)} reasoning)` : ''}`);
  return parts.join(' · ');
}

/** ISO time plus epoch ms: `2026-11-30T16:02:03.123Z (1796140923123)`; the raw number when invalid. */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : `${d.toISOString()} (${ms})`;
}

/** Wall-clock `HH:MM:SS` in the local zone. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '';
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}
