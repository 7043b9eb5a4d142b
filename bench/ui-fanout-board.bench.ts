/**
 * The fan-out board in Debian's Chromium against browser mode (the real host, agents, store,
 * worktrees and `openai` client; the scripted server paces the streams): a 4-branch fan-out started
 * from the form, each branch streaming reasoning chunks into the board at once. The page measures
 * its worst main-thread delay (a 10 ms interval timer's lateness, and long tasks, as in
 * ui-streaming.bench.ts) from the board's first paint until every column is idle. Goal (issue 21):
 * < 100 ms; the reference web UI's own bound, 250 ms, is the ratio's baseline. The page's idle delay
 * over 2 s before is printed as the noise floor. On a loaded machine a long task's wall time is
 * mostly the renderer thread waiting for a core, so a Chromium trace (devtools.timeline) of the
 * same stretch gives, beside it, the most CPU time any one task of the page's main thread used
 * (`tdur`): that part is the board's own work.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { frame, framesResponse, textResponse, wireChunk } from '../test/support/scripted-llm/index.js';
import { startE2eApp } from '../test/e2e/support/e2e-harness.js';
import { findChromium } from '../scripts/chromium-path.js';
import { baseSession, type Message } from './fanout-fixture.js';
import { report } from './report.js';

const REFERENCE_BOUND_MS = 250;

/** `n` reasoning chunks, `perFrame` per 16 ms, then an answer. */
function reasoningStream(n: number, perFrame: number): ReturnType<typeof framesResponse> {
  const frames = [frame.data(wireChunk({ role: 'assistant', content: null, reasoning_content: '' }))];
  for (let sent = 0; sent < n; sent += perFrame) {
    let raw = '';
    for (let i = sent; i < Math.min(n, sent + perFrame); i++) raw += `data: ${JSON.stringify(wireChunk({ reasoning_content: `r${i % 10} ` }))}\n\n`;
    frames.push(frame.raw(raw), frame.delay(16));
  }
  frames.push(frame.data(wireChunk({ content: 'done streaming' })), frame.data(wireChunk({}, { finishReason: 'stop' })), frame.done());
  return framesResponse(frames);
}

/** A trace event of Chromium's JSON trace format (the fields read here). */
interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly args?: { readonly name?: string };
}

/** The longest task (wall, ms) of the renderer main thread(s) in `trace`, and the most thread CPU (ms) one task used. */
function worstTasks(trace: Buffer): { readonly wallMs: number; readonly cpuMs: number; readonly over50: number } {
  const parsed = JSON.parse(trace.toString('utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  let wallMs = 0;
  let cpuMs = 0;
  let over50 = 0;
  for (const e of events) {
    if (e.ph !== 'X' || (e.name !== 'RunTask' && e.name !== 'ThreadControllerImpl::RunTask') || !mains.has(`${e.pid}:${e.tid}`)) continue;
    wallMs = Math.max(wallMs, (e.dur ?? 0) / 1000);
    cpuMs = Math.max(cpuMs, (e.tdur ?? 0) / 1000);
    if ((e.dur ?? 0) > 50_000) over50++;
  }
  return { wallMs, cpuMs, over50 };
}

/** 4. The board in Chromium while 4 branches stream. */
async function main(): Promise<void> {
  const found = findChromium();
  if (found.path === undefined || !existsSync(join(import.meta.dirname, '../dist/renderer/index.html'))) {
    console.error(`fanout bench, UI part skipped: ${found.path === undefined ? found.reason : 'needs a built renderer (npx vite build)'}`);
    return;
  }
  const CHUNKS = 4_000;
  const PER_FRAME = 16;
  const app = await startE2eApp({ approvalPolicy: 'allow', models: ['model-a', 'model-b', 'model-c', 'model-d'] });
  try {
    app.llm.setHandler((request) => {
      const messages = request.body.messages as Message[];
      const last = JSON.stringify(messages.findLast((m) => m.role === 'user')?.content ?? '');
      return last.includes('stream') ? reasoningStream(CHUNKS, PER_FRAME) : textResponse('hello');
    });
    const parent = await baseSession(app.runtime, app.dir);
    const page = app.page;
    await page.reload();
    await page.locator(`[data-testid="session-row"][data-session-id="${parent}"]`).click();
    await page.getByTestId('session-view').waitFor();
    // The idle noise floor over 2 s, then the fan-out's stream (the monitor of ui-streaming.bench.ts).
    await page.evaluate(() => {
      const w = window as unknown as { __delay: { worst: number; longTasks: number; worstLong: number } };
      w.__delay = { worst: 0, longTasks: 0, worstLong: 0 };
      let expected = performance.now() + 10;
      setInterval(() => {
        const now = performance.now();
        w.__delay.worst = Math.max(w.__delay.worst, now - expected);
        expected = now + 10;
      }, 10);
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          w.__delay.longTasks++;
          w.__delay.worstLong = Math.max(w.__delay.worstLong, entry.duration);
        }
      }).observe({ type: 'longtask' as PerformanceEntry['entryType'], buffered: false });
    });
    const read = () =>
      page.evaluate(() => {
        const w = window as unknown as { __delay: { worst: number; longTasks: number; worstLong: number } };
        const out = { worstDelayMs: w.__delay.worst, longTasks: w.__delay.longTasks, worstLongTaskMs: w.__delay.worstLong };
        w.__delay = { worst: 0, longTasks: 0, worstLong: 0 };
        return out;
      });
    await page.waitForTimeout(2_000);
    const idle = await read();
    // The fan-out from the form, as a user starts it; the board opens on its branches.
    const started = Date.now();
    await page.locator('[data-testid="turn-end"][data-turn="1"] [data-testid="fanout-button"]').click();
    await page.getByTestId('fanout-count').selectOption('4');
    await page.getByTestId('fanout-prompt').fill('stream your thoughts');
    await page.getByTestId('fanout-check').fill('true');
    await page.getByTestId('fanout-start').click();
    await page.getByTestId('board-view').waitFor({ timeout: 30_000 });
    const onBoard = await page.getByTestId('board-column').count();
    await app.browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    await read(); // from the board's first paint on
    await page.waitForFunction(() => document.querySelector('[data-testid="board-view"]')?.getAttribute('data-running') === 'true', undefined, { timeout: 30_000 });
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLElement>('[data-testid="board-column"]')].every((c) => c.dataset['status'] === 'idle'), undefined, { timeout: 60_000 });
    const busy = await read();
    const tasks = worstTasks(await app.browser.stopTracing());
    const streamMs = Date.now() - started;
    const worst = Math.max(busy.worstDelayMs, busy.worstLongTaskMs);
    report({
      name: `board while 4 branches stream at once (${CHUNKS.toLocaleString('en-US')} reasoning chunks each, ${PER_FRAME} per 16 ms)`,
      unit: 'ms worst main-thread delay',
      ours: Number(worst.toFixed(1)),
      baseline: REFERENCE_BOUND_MS,
      baselineName: "the reference web UI's bound",
      ratio: worst / REFERENCE_BOUND_MS,
      goal: '< 100 ms',
      met: worst < 100 && onBoard === 4,
      detail: `${onBoard} board columns; fan-out took ${(streamMs / 1000).toFixed(1)} s; timer lateness ${busy.worstDelayMs.toFixed(1)} ms, ${busy.longTasks} long task(s) (worst ${busy.worstLongTaskMs.toFixed(1)} ms); traced: ${tasks.over50} task(s) over 50 ms wall, the longest ${tasks.wallMs.toFixed(1)} ms, and no task used more than ${tasks.cpuMs.toFixed(1)} ms of the renderer thread's CPU; idle noise floor ${idle.worstDelayMs.toFixed(1)} ms`,
    });
  } finally {
    await app.close();
  }
}

await main();
