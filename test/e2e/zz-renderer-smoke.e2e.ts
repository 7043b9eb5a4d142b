// TEMPORARY smoke test by the renderer helper (deleted after use).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { frame, framesResponse, reply, textResponse, toolCallResponse, wireChunk } from '../support/scripted-llm/index.js';
import { startE2eApp, type E2eApp } from './support/e2e-harness.js';

let app: E2eApp;
const problems: string[] = [];
beforeAll(async () => {
  app = await startE2eApp({ approvalPolicy: 'ask' });
  app.page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`); });
  app.page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
});
afterAll(async () => { await app?.close(); });

it('smoke', async () => {
  const page = app.page;
  writeFileSync(join(app.workspace, 'a.txt'), 'alpha\n');
  writeFileSync(join(app.workspace, 'b.txt'), 'beta\n');
  await page.getByTestId('sidebar').waitFor();
  await page.screenshot({ path: '/tmp/shots/01-empty.png' });
  await page.getByTestId('new-session-button').click();
  await page.getByTestId('folder-browser').waitFor();
  await page.getByTestId('folder-path').fill(app.workspace);
  await page.getByTestId('folder-path').press('Enter');
  await page.waitForTimeout(300);
  await page.screenshot({ path: '/tmp/shots/02-folder.png' });
  await page.getByTestId('folder-choose').click();
  await page.getByTestId('session-view').waitFor();
  app.llm.enqueue(
    reply({ reasoning: 'I should read both files in parallel, then run a command.', toolCalls: [
      { id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { id: 'c2', name: 'read_file', arguments: '{"path":"b.txt"}' },
    ] }),
    toolCallResponse([{ id: 'c3', name: 'bash', arguments: '{"command":"echo hi; sleep 0.5; echo bye"}' }]),
    toolCallResponse([{ id: 'c4', name: 'edit_file', arguments: '{"path":"a.txt","old_string":"alpha","new_string":"ALPHA"}' }]),
    textResponse('All done: both files read, command ran, a.txt edited.'),
  );
  await page.getByTestId('composer-input').fill('please do the thing');
  await page.getByTestId('composer-input').press('Enter');
  try { await page.getByTestId('approval-panel').waitFor({ timeout: 15000 }); } catch (e) { await page.screenshot({ path: '/tmp/shots/03-fail.png' }); throw e; }
  await page.screenshot({ path: '/tmp/shots/03-approval.png' });
  await page.getByTestId('approval-allow').first().click();
  await page.waitForTimeout(200);
  const approval2 = page.getByTestId('approval-allow');
  try { await approval2.first().waitFor({ timeout: 5000 }); await approval2.first().click(); } catch { /* no second approval */ }
  await page.locator('[data-testid="turn-end"]').first().waitFor({ timeout: 20000 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: '/tmp/shots/04-done.png' });
  const kinds = await page.locator('[data-testid="timeline-row"]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-kind')}:${e.getAttribute('data-seq')}`));
  console.log('ROWS', kinds.join(' '));
  const tools = await page.locator('[data-testid="tool-row"]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-tool-name'), e.getAttribute('data-state'), e.getAttribute('data-parallel-group')]));
  console.log('TOOLS', JSON.stringify(tools));
  // expand bash and edit
  const bash = page.locator('[data-testid="tool-row"][data-tool-name="bash"]');
  await bash.getByTestId('tool-toggle').click();
  const edit = page.locator('[data-testid="tool-row"][data-tool-name="edit_file"]');
  await edit.getByTestId('tool-toggle').click();
  await page.waitForTimeout(200);
  await page.screenshot({ path: '/tmp/shots/05-expanded.png' });
  console.log('TERMINAL', await bash.getByTestId('tool-terminal').textContent(), await bash.getByTestId('tool-exit-code').textContent());
  console.log('DIFF rows', await edit.locator('.diff-table tr').count());
  await page.getByTestId('request-button').first().click();
  await page.getByTestId('request-message').first().waitFor();
  await page.screenshot({ path: '/tmp/shots/06-request.png' });
  await page.getByTestId('request-inspector-close').click();
  await page.locator('[data-testid="timeline-row"][data-kind="user"]').first().click();
  await page.getByTestId('raw-inspector').waitFor();
  await page.screenshot({ path: '/tmp/shots/07-raw.png' });
  await page.getByTestId('tab-terminal').click();
  await page.locator('[data-testid="terminal-host"] .xterm').waitFor();
  await page.waitForTimeout(800);
  await page.keyboard.type('echo from-terminal\n');
  await page.waitForTimeout(800);
  await page.screenshot({ path: '/tmp/shots/08-terminal.png' });
  await page.getByTestId('tab-timeline').click();
  await page.getByTestId('settings-button').click();
  await page.getByTestId('settings-dialog').waitFor();
  await page.getByTestId('settings-model').waitFor();
  await page.screenshot({ path: '/tmp/shots/09-settings.png' });
  await page.getByTestId('settings-dialog-close').click();
  await page.getByTestId('session-fork-button').first().click({ force: true });
  await page.waitForTimeout(800);
  await page.screenshot({ path: '/tmp/shots/10-fork.png' });
  const sessions = await page.locator('[data-testid="session-row"]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-depth'), e.textContent]));
  console.log('SESSIONS', JSON.stringify(sessions));
  console.log('PROBLEMS', JSON.stringify(problems, null, 1));
  expect(problems.filter((p) => p.startsWith('pageerror'))).toEqual([]);
});

it('stress: 100,000 reasoning chunks into an open timeline', async () => {
  const page = app.page;
  await page.evaluate(() => {
    const w = window as unknown as Record<string, unknown>;
    w['__lt'] = [] as number[];
    w['__lts'] = [] as number[][];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) { (w['__lt'] as number[]).push(e.duration); (w['__lts'] as number[][]).push([e.startTime, e.duration]); }
    }).observe({ type: 'longtask', buffered: false });
    w['__gap'] = 0;
    let last = performance.now();
    const tick = (): void => {
      const now = performance.now();
      w['__gap'] = Math.max(w['__gap'] as number, now - last);
      last = now;
      if (!w['__stop']) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const N = 100_000;
  let text = '';
  for (let i = 0; i < N; i++) text += String.fromCharCode(97 + (i % 26));
  const frames = [frame.data(wireChunk({ role: 'assistant', content: '' }))];
  for (let i = 0; i < N; i++) {
    frames.push(frame.data(wireChunk({ reasoning_content: text[i] })));
    if (i % 128 === 127) frames.push(frame.delay(16));
  }
  frames.push(frame.data(wireChunk({ content: 'stress done' })), frame.data(wireChunk({}, { finishReason: 'stop' })), frame.done());
  app.llm.enqueue(process.env['FAST'] ? reply({ reasoning: text, text: 'stress done', split: 1 }) : framesResponse(frames));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const t0 = Date.now();
  await page.getByTestId('composer-input').fill('stress');
  await page.getByTestId('composer-input').press('Enter');
  await page.locator('[data-testid="turn-end"][data-turn="2"]').waitFor({ timeout: 120_000 });
  const elapsed = Date.now() - t0;
  const { profile } = await cdp.send('Profiler.stop');
  writeFileSync('/tmp/shots/stress.cpuprofile', JSON.stringify(profile));
  await page.screenshot({ path: '/tmp/shots/11-stress.png' });
  const result = await page.evaluate(() => {
    const w = window as unknown as Record<string, unknown>;
    w['__stop'] = true;
    const lt = w['__lt'] as number[];
    return { longtasks: lt.length, worstLongTask: Math.max(0, ...lt), worstFrameGap: w['__gap'], lts: w['__lts'], now: performance.now() };
  });
  const len = await page.locator('[data-testid="reasoning-row"]').last().getByTestId('reasoning-length').textContent();
  console.log('STRESS', JSON.stringify({ elapsedMs: elapsed, ...result, reasoningLength: len }));
});
