/**
 * The CLI's prices and budgets (docs/providers.md "Prices, overrides and budgets"): `prices` in `<data dir>/cli.json` (overrides per
 * endpoint and model, USD per million tokens; see electron/pricing/price-list.ts) and the
 * `--budget USD` (session), `--turn-budget USD` (per turn) and `--max-tokens-total N` (session
 * tokens, for models without a price) flags of `run` and `resume`.
 */
import { readFileSync } from 'node:fs';
import { ForklineError } from '../../shared/errors.js';
import type { Budget } from '../agent/spend-guard.js';
import { parsePriceOverrides, PriceBook, PriceOverrideError, type PriceOverride } from '../pricing/price-list.js';
import { cliConfigFile } from './cli-config.js';

/**
 * The overrides in cli.json (none when the file is missing or is not JSON — the approval setting
 * reports that file's problems).
 * @throws ForklineError INVALID_PRICE_OVERRIDE naming the field (e.g. `…/cli.json prices[0].inputMtok`).
 */
export function cliPriceOverrides(dataDir: string): PriceOverride[] {
  const file = cliConfigFile(dataDir);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  try {
    return parsePriceOverrides((parsed as { prices?: unknown } | null)?.prices, `${file} prices`);
  } catch (error) {
    if (error instanceof PriceOverrideError) throw new ForklineError('INVALID_PRICE_OVERRIDE', error.message);
    throw error;
  }
}

/** The price book the CLI prices with: cli.json's overrides over the bundled list. */
export function cliPriceBook(dataDir: string): PriceBook {
  return new PriceBook(cliPriceOverrides(dataDir));
}

/**
 * The budget flags, validated.
 * @throws ForklineError INVALID_BUDGET naming the flag for a value that is not a number above 0.
 */
export function budgetFromFlags(values: { readonly [flag: string]: unknown }): Budget | undefined {
  const read = (flag: 'budget' | 'turn-budget' | 'max-tokens-total', integer: boolean): number | undefined => {
    const raw = values[flag];
    if (raw === undefined) return undefined;
    const text = String(raw).trim().replace(/^\$/, '').replace(/_/g, '');
    const n = text === '' ? NaN : Number(text);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isSafeInteger(n))) {
      throw new ForklineError('INVALID_BUDGET', `--${flag} must be ${integer ? 'a whole number of tokens' : 'an amount in USD'} above 0 (got ${String(raw)})`);
    }
    return n;
  };
  const sessionUsd = read('budget', false);
  const turnUsd = read('turn-budget', false);
  const sessionTokens = read('max-tokens-total', true);
  if (sessionUsd === undefined && turnUsd === undefined && sessionTokens === undefined) return undefined;
  return { ...(sessionUsd !== undefined ? { sessionUsd } : {}), ...(turnUsd !== undefined ? { turnUsd } : {}), ...(sessionTokens !== undefined ? { sessionTokens } : {}) };
}
