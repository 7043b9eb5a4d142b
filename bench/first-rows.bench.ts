/**
 * Time to first timeline rows when a session opens (docs/architecture.md §13: a 100,000-event session ≤ 1.5×
 * a 150-event one, same run — never fold the whole log first). Measured through the real parts a
 * click goes through, minus the browser: the Host answers `subscribeSession` with the session's
 * tail (SQLite store, cold session), the answer crosses a JSON round trip as on the WebSocket, the
 * renderer's session store applies it and the timeline projector folds it into rows, and the
 * visible rows are picked. The browser's own figure is in ui-streaming.bench.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SubscribeResult } from '../shared/api.js';
import { createRuntime } from '../electron/host/runtime.js';
import { applySubscribeResult, createSessionStore } from '../renderer/state/session-store.js';
import { OPEN_TAIL_EVENTS } from '../renderer/state/session-controller.js';
import { createTimelineProjector } from '../renderer/state/timeline-projector.js';
import { visibleRows } from '../renderer/views/timeline/row-filter.js';
import { header } from '../test/support/store-fixtures.js';
import { chunkHeavyMix } from './event-mix.js';
import { gc, median, report } from './report.js';

const RUNS = 15;

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'forkline-bench-rows-'));
  const runtime = createRuntime({ dataDir: join(dir, 'data'), env: { FORKLINE_CHECKPOINTS: 'off' } });
  try {
    const big = chunkHeavyMix(100_000).events;
    const shortMix = chunkHeavyMix(151, 150).events;
    const end = shortMix.findIndex((e) => e.type === 'turn/end');
    const small = shortMix.slice(0, end + 1);
    runtime.store.createSession(header('small', { cwd: dir }), small);
    runtime.store.createSession(header('big', { cwd: dir }), big);
    const connection = runtime.host.connect(() => undefined);

    const firstRows = (sessionId: string): { ms: number; rows: number; loaded: number } => {
      const t0 = performance.now();
      const answer = connection.subscribeSession({ sessionId, fromSeq: 0, tail: OPEN_TAIL_EVENTS });
      const received = JSON.parse(JSON.stringify({ id: 1, ok: true, result: answer })).result as SubscribeResult;
      const store = createSessionStore(sessionId);
      applySubscribeResult(store, received);
      const timeline = createTimelineProjector().project(store.getState().events);
      const rows = visibleRows(timeline.rows, { showLogEvents: false, modelView: false });
      const ms = performance.now() - t0;
      connection.unsubscribeSession({ subscriptionId: answer.subscriptionId });
      if (rows.length === 0) throw new Error(`${sessionId}: no rows`);
      return { ms, rows: rows.length, loaded: received.events.length };
    };

    for (let i = 0; i < 3; i++) {
      firstRows('small');
      firstRows('big');
    }
    const smallMs: number[] = [];
    const bigMs: number[] = [];
    const ratios: number[] = [];
    let bigLoaded = 0;
    for (let run = 0; run < RUNS; run++) {
      gc();
      // Alternate which side runs first.
      const pair = run % 2 === 0 ? [firstRows('small'), firstRows('big')] : [firstRows('big'), firstRows('small')].reverse();
      smallMs.push(pair[0]!.ms);
      bigMs.push(pair[1]!.ms);
      ratios.push(pair[1]!.ms / pair[0]!.ms);
      bigLoaded = pair[1]!.loaded;
    }
    connection.dispose();
    const ratio = median(ratios);
    report({
      name: 'time to first rows, 100,000-event session',
      unit: 'ms',
      ours: Number(median(bigMs).toFixed(2)),
      baseline: Number(median(smallMs).toFixed(2)),
      baselineName: `the same for a ${small.length}-event session`,
      ratio,
      goal: '≤ 1.5×',
      met: ratio <= 1.5,
      detail: `${big.length} vs ${small.length} events; host subscribe (tail ${OPEN_TAIL_EVENTS}, cold SQLite session) → JSON round trip → session store → timeline fold → visible rows; the big session sends ${bigLoaded} events; median of ${RUNS} paired runs`,
    });
  } finally {
    void runtime.close().then(() => rmSync(dir, { recursive: true, force: true }));
  }
}

main();
