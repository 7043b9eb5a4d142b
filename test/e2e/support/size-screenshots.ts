/**
 * Screenshots at several window sizes, each checked for overlapping or cut-off controls (and, when
 * asked, axe-core's serious violations). Test-only: it asserts with vitest's `expect` (the layout
 * checks themselves, in layout-checks.ts, stay usable from benchmarks).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { SCREENSHOTS } from './e2e-harness.js';
import { layoutProblems, seriousAxeViolations } from './layout-checks.js';

/** A viewport to screenshot at, named in the file name (`1000`, `1400`). */
export interface NamedSize {
  readonly name: string;
  readonly width: number;
  readonly height: number;
}

/**
 * Screenshots the page at each size (`<SCREENSHOTS>/<prefix>-<size name>.png`), asserting at each
 * that no control overlaps another or is cut off (and, with `axe`, no serious accessibility
 * violation), then sets the viewport to `restore`.
 */
export async function screenshotAtSizes(page: Page, prefix: string, sizes: readonly NamedSize[], restore: { width: number; height: number }, options: { axe?: boolean } = {}): Promise<void> {
  for (const size of sizes) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.waitForFunction((w) => document.documentElement.clientWidth === w, size.width);
    await page.screenshot({ path: join(SCREENSHOTS, `${prefix}-${size.name}.png`) });
    expect(await layoutProblems(page), `${prefix} at ${size.name}`).toEqual([]);
  }
  if (options.axe) expect(await seriousAxeViolations(page), prefix).toEqual([]);
  await page.setViewportSize(restore);
  await page.waitForFunction((w) => document.documentElement.clientWidth === w, restore.width);
}
