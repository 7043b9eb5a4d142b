/**
 * Reading and driving keyboard focus in the browser tests: what holds focus (test id, session id,
 * row kind, F6 area, whether a focus ring shows), waiting for focus to land on a test id, and running
 * a command-palette command by typing its words. Keyboard only: no mouse events.
 */
import type { Locator, Page } from 'playwright-core';

export interface Focused {
  /** The focused element's `data-testid` (else its tag name); `body` when focus is lost. */
  readonly testId: string;
  readonly sessionId?: string;
  readonly kind?: string;
  readonly key?: string;
  /** The F6 area (`data-region`) holding focus. */
  readonly region?: string;
  /** A focus ring shows (an outline of at least 1 px). */
  readonly ring: boolean;
}

export function focused(page: Page): Promise<Focused> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { testId: 'body', ring: false };
    const style = getComputedStyle(el);
    const ring = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 1;
    const region = el.closest<HTMLElement>('[data-region]')?.dataset['region'];
    return {
      testId: el.dataset['testid'] ?? el.tagName.toLowerCase(),
      ...(el.dataset['sessionId'] ? { sessionId: el.dataset['sessionId'] } : {}),
      ...(el.dataset['kind'] ? { kind: el.dataset['kind'] } : {}),
      ...(el.dataset['key'] ? { key: el.dataset['key'] } : {}),
      ...(region ? { region } : {}),
      ring,
    };
  });
}

/** Waits until the element with `testId` holds focus; on time-out the error names what holds it instead. */
export async function waitForFocus(page: Page, testId: string, timeout = 10_000): Promise<void> {
  try {
    await page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset['testid'] === id, testId, { timeout });
  } catch {
    throw new Error(`focus did not reach ${testId}: it is on ${JSON.stringify(await focused(page))}`);
  }
}

/**
 * Opens the command palette with Ctrl+K. A press that lands before the page has taken keyboard focus
 * or mounted its key handler (a loaded machine, right after a navigation) is pressed again, up to
 * three times; a palette that never opens fails naming what holds focus and any open dialog (the
 * palette is not offered over a modal dialog).
 */
export async function openPalette(page: Page): Promise<void> {
  const palette = page.getByTestId('command-palette');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Control+k');
    try {
      await palette.waitFor({ timeout: attempt < 3 ? 5_000 : 20_000 });
      return;
    } catch (error) {
      if (attempt >= 3) {
        const dialog = await page.evaluate(() => document.querySelector('[role="dialog"][aria-modal="true"]')?.getAttribute('aria-label') ?? null);
        throw new Error(`Ctrl+K opened no command palette (3 presses); focus is on ${JSON.stringify(await focused(page))}${dialog !== null ? `, a dialog is open: ${dialog}` : ''}`, { cause: error });
      }
    }
  }
}

/** Runs a palette command by typing its words (Ctrl+K, words, Enter). */
export async function runCommand(page: Page, words: string): Promise<void> {
  await openPalette(page);
  await page.keyboard.type(words);
  await page.locator('[data-testid="command-palette-item"][aria-selected="true"]').waitFor();
  await page.keyboard.press('Enter');
  await page.getByTestId('command-palette').waitFor({ state: 'detached' });
}

/** Focuses `locator` and presses Enter on it: a button or link activated from the keyboard. */
export async function pressEnterOn(locator: Locator): Promise<void> {
  await locator.focus();
  await locator.page().keyboard.press('Enter');
}

/** Replaces a text field's whole value from the keyboard: focus, select all, type `text`. */
export async function retypeIn(locator: Locator, text: string): Promise<void> {
  await locator.focus();
  await locator.page().keyboard.press('Control+a');
  await locator.page().keyboard.insertText(text);
}
