import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../shared/api.js';
import type { ConnectionStatus } from '../../../renderer/host/ws-bridge.js';
import { AppRuntime } from '../../../renderer/state/app-runtime.js';
import { createAppStore } from '../../../renderer/state/app-store.js';
import { TerminalHub } from '../../../renderer/state/terminal-hub.js';
import { evs, flush, ManualFrames, ScriptedClient, subscribeResult } from './fakes.js';

const summary = (id: string, status: 'idle' | 'running' = 'idle'): SessionSummary => ({ id, createdAt: 0, updatedAt: 0, eventCount: 0, status });

describe('app store slices', () => {
  it('starts clean per store and keeps actions next to their state', () => {
    const a = createAppStore();
    const b = createAppStore();
    a.getState().setSessions([summary('s1'), summary('s2')]);
    expect(b.getState().sessions).toEqual([]);
    a.getState().patchSessionStatus('s2', 'running');
    expect(a.getState().sessions.map((s) => s.status)).toEqual(['idle', 'running']);
    const before = a.getState().sessions;
    a.getState().patchSessionStatus('s2', 'running');
    expect(a.getState().sessions).toBe(before);
    a.getState().select('s1');
    a.getState().inspect({ kind: 'seq', seq: 3 });
    a.getState().select('s2');
    expect(a.getState()).toMatchObject({ selectedId: 's2', inspector: undefined });
    a.getState().jumpTo(7);
    a.getState().jumpTo(7);
    expect(a.getState().jump).toEqual({ seq: 7, nonce: 2 });
    a.getState().toggleExpanded('s1:row');
    expect(a.getState().expanded).toEqual({ 's1:row': true });
    a.getState().toggleExpanded('s1:row');
    expect(a.getState().expanded).toEqual({});
    for (let i = 0; i < 8; i++) a.getState().toast(`t${i}`);
    expect(a.getState().toasts.map((t) => t.text)).toEqual(['t3', 't4', 't5', 't6', 't7']);
    a.getState().setSessionsLoading();
    expect(a.getState().sessionsState).toBe('ready');
  });
});

describe('terminal hub', () => {
  it('buffers output until a view attaches, then streams', () => {
    const hub = new TerminalHub();
    hub.data('t1', 'early ');
    hub.exit('t2', 3);
    const seen: string[] = [];
    const off = hub.attach('t1', { data: (d) => seen.push(d), exit: (c) => seen.push(`exit ${c}`) });
    hub.data('t1', 'late');
    hub.exit('t1', 0);
    off();
    hub.data('t1', 'after');
    expect(seen).toEqual(['early ', 'late', 'exit 0']);
    const exits: number[] = [];
    hub.attach('t2', { data: () => undefined, exit: (c) => exits.push(c) });
    expect(exits).toEqual([3]);
  });
});

describe('AppRuntime', () => {
  function setup() {
    const host = new ScriptedClient();
    const frames = new ManualFrames();
    let status: ConnectionStatus = { state: 'open', attempt: 0, openCount: 1 };
    const listeners = new Set<(s: ConnectionStatus) => void>();
    const timers: (() => void)[] = [];
    const runtime = new AppRuntime({
      client: host.client,
      connection: { status: () => status, onStatus: (l) => (listeners.add(l), () => listeners.delete(l)) },
      schedule: frames.schedule,
      setTimer: (fn) => {
        timers.push(fn);
        return () => undefined;
      },
    });
    const setStatus = (s: ConnectionStatus): void => {
      status = s;
      for (const l of listeners) l(s);
    };
    return { host, frames, runtime, setStatus, timers };
  }

  it('routes pushes: session pushes to the open session, status to the sidebar, sessions/changed to a refresh', async () => {
    const { host, frames, runtime, timers } = setup();
    host.listSessionsResult = [summary('s1'), summary('s2')];
    runtime.start();
    await flush();
    expect(runtime.app.getState().sessions).toHaveLength(2);
    const open = runtime.acquire('s1');
    host.subscribeCalls[0]!.answer.resolve(subscribeResult('sub1', evs(0, 1)));
    await flush();
    host.push({ kind: 'session/status', sessionId: 's1', status: 'running' });
    host.push({ kind: 'session/events', subscriptionId: 'sub1', sessionId: 's1', events: evs(2, 3) });
    frames.frame();
    expect(open.controller.store.getState()).toMatchObject({ status: 'running', lastSeq: 3 });
    expect(runtime.app.getState().sessions.find((s) => s.id === 's1')!.status).toBe('running');
    expect(open.projector.project(open.controller.store.getState().events).rows).toHaveLength(4);
    host.push({ kind: 'sessions/changed' });
    host.push({ kind: 'sessions/changed' });
    expect(timers).toHaveLength(1);
    runtime.release(open);
    expect(host.unsubscribed).toEqual(['sub1']);
    runtime.dispose();
  });

  it('after the connection reopens: refreshes the list and resubscribes open sessions from lastSeq + 1', async () => {
    const { host, runtime, setStatus } = setup();
    runtime.start();
    await flush();
    const open = runtime.acquire('s1');
    const again = runtime.acquire('s1');
    expect(again).toBe(open);
    host.subscribeCalls[0]!.answer.resolve(subscribeResult('sub1', evs(0, 4)));
    await flush();
    const lists = host.calls.filter((c) => c.method === 'listSessions').length;
    setStatus({ state: 'reconnecting', attempt: 1, openCount: 1, nextRetryAt: 250 });
    expect(runtime.app.getState().connection.state).toBe('reconnecting');
    setStatus({ state: 'open', attempt: 0, openCount: 2 });
    await flush();
    expect(host.subscribeCalls.map((c) => c.fromSeq)).toEqual([0, 5]);
    expect(host.calls.filter((c) => c.method === 'listSessions').length).toBe(lists + 1);
    runtime.release(open);
    expect(host.unsubscribed).toEqual(['sub1']);
    runtime.release(again);
    runtime.dispose();
  });
});
