import { describe, expect, it } from 'vitest';
import type { HostPush } from '../../../shared/api.js';
import { backoffDelay } from '../../../renderer/host/backoff.js';
import { createWsBridge, hostSocketUrl, parseFrame, type ConnectionStatus } from '../../../renderer/host/ws-bridge.js';
import { FakeSocket, ManualTimers } from './fakes.js';

function setup(callTimeoutMs = 60_000) {
  const timers = new ManualTimers();
  const sockets: FakeSocket[] = [];
  const statuses: ConnectionStatus[] = [];
  const bridge = createWsBridge({
    url: 'ws://127.0.0.1:5000/host?token=t',
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    timers,
    now: () => timers.now,
    random: () => 0.5,
    callTimeoutMs,
  });
  bridge.onStatus((s) => statuses.push(s));
  return { timers, sockets, statuses, bridge };
}

describe('ws bridge', () => {
  it('queues calls until the socket opens, then matches responses by id', async () => {
    const { sockets, bridge } = setup();
    expect(bridge.status.state).toBe('connecting');
    const a = bridge.call({ method: 'listSessions', params: {} });
    const b = bridge.call({ method: 'getSettings', params: {} });
    expect(sockets[0]!.sent).toEqual([]);
    sockets[0]!.open();
    expect(bridge.status).toMatchObject({ state: 'open', openCount: 1 });
    const [ra, rb] = sockets[0]!.requests();
    expect(ra).toEqual({ id: 1, method: 'listSessions', params: {} });
    sockets[0]!.receive({ id: rb!.id, ok: true, result: 'settings' });
    sockets[0]!.receive({ id: ra!.id, ok: false, error: { name: 'E', code: 'X', message: 'm' } });
    await expect(b).resolves.toEqual({ id: 2, ok: true, result: 'settings' });
    await expect(a).resolves.toMatchObject({ ok: false, error: { code: 'X' } });
  });

  it('delivers push frames and ignores malformed frames', () => {
    const { sockets, bridge } = setup();
    const pushes: HostPush[] = [];
    bridge.onPush((p) => pushes.push(p));
    sockets[0]!.open();
    sockets[0]!.receive({ push: { kind: 'session/status', sessionId: 's', status: 'running' } });
    sockets[0]!.receive('not json');
    sockets[0]!.receive({ something: 1 });
    expect(pushes).toEqual([{ kind: 'session/status', sessionId: 's', status: 'running' }]);
  });

  it('on close: answers in-flight calls HOST_UNREACHABLE, keeps unsent ones, reconnects with backoff', async () => {
    const { sockets, bridge, timers, statuses } = setup();
    sockets[0]!.open();
    const inFlight = bridge.call({ method: 'followup', params: { sessionId: 's', text: 'x' } });
    sockets[0]!.drop(1006);
    await expect(inFlight).resolves.toMatchObject({ ok: false, error: { code: 'HOST_UNREACHABLE' } });
    expect(bridge.status).toMatchObject({ state: 'reconnecting', attempt: 1, nextRetryAt: 250 });
    expect(bridge.status.lastError).toMatch(/1006/);
    const queued = bridge.call({ method: 'listSessions', params: {} });
    timers.advance(249);
    expect(sockets).toHaveLength(1);
    timers.advance(1);
    expect(sockets).toHaveLength(2);
    sockets[1]!.drop();
    expect(bridge.status).toMatchObject({ state: 'reconnecting', attempt: 2, nextRetryAt: 250 + 500 });
    timers.advance(500);
    sockets[2]!.open();
    expect(bridge.status).toMatchObject({ state: 'open', attempt: 0, openCount: 2 });
    const [req] = sockets[2]!.requests();
    expect(req!.method).toBe('listSessions');
    sockets[2]!.receive({ id: req!.id, ok: true, result: [] });
    await expect(queued).resolves.toMatchObject({ ok: true });
    expect(statuses.map((s) => s.state)).toEqual(['open', 'reconnecting', 'reconnecting', 'open']);
  });

  it('gives up once the host has been unreachable for giveUpAfterMs since the connection was lost', () => {
    const timers = new ManualTimers();
    const sockets: FakeSocket[] = [];
    const bridge = createWsBridge({
      url: 'ws://127.0.0.1:5000/host?token=t',
      createSocket: (url) => {
        const socket = new FakeSocket(url);
        sockets.push(socket);
        return socket;
      },
      timers,
      now: () => timers.now,
      random: () => 0.5,
      giveUpAfterMs: 5_000,
    });
    // Open for a long time: that time does not count.
    timers.advance(10);
    sockets[0]!.open();
    timers.advance(60_000);
    sockets[0]!.drop(1006);
    expect(bridge.status).toMatchObject({ state: 'reconnecting', attempt: 1 });
    for (let i = 0; i < 50 && bridge.status.state === 'reconnecting'; i++) {
      timers.advance(bridge.status.nextRetryAt! - timers.now);
      sockets.at(-1)!.drop(1006);
    }
    expect(bridge.status).toMatchObject({ state: 'closed', gaveUpAfterMs: 5_000 });
    expect(timers.now - 60_010).toBeGreaterThanOrEqual(5_000);
    expect(timers.count).toBe(0);
    const n = sockets.length;
    timers.advance(60_000);
    expect(sockets).toHaveLength(n);
  });

  it('stops reconnecting when the host refuses the token, and keeps retrying when it is only unreachable', async () => {
    const timers = new ManualTimers();
    const sockets: FakeSocket[] = [];
    const answers: ('wrong-token' | undefined)[] = [undefined, 'wrong-token'];
    let asked = 0;
    const bridge = createWsBridge({
      url: 'ws://127.0.0.1:5000/host?token=old',
      createSocket: (url) => {
        const socket = new FakeSocket(url);
        sockets.push(socket);
        return socket;
      },
      timers,
      now: () => timers.now,
      random: () => 0.5,
      checkRefused: () => Promise.resolve(answers[asked++]),
    });
    const call = bridge.call({ method: 'listSessions', params: {} });
    // The handshake fails while the host is down: a retry is scheduled.
    sockets[0]!.drop(1006);
    await Promise.resolve();
    await Promise.resolve();
    expect(bridge.status).toMatchObject({ state: 'reconnecting', attempt: 1 });
    timers.advance(250);
    // The host is back with another token: refused, final.
    sockets[1]!.drop(1006);
    await expect(call).resolves.toMatchObject({ ok: false, error: { code: 'HOST_UNREACHABLE' } });
    expect(bridge.status).toMatchObject({ state: 'closed', refused: 'wrong-token' });
    expect(timers.count).toBe(0);
    timers.advance(60_000);
    expect(sockets).toHaveLength(2);
    // A connection that had opened is simply retried (no token question).
    expect(asked).toBe(2);
    bridge.dispose();
  });

  it('times out calls without an answer', async () => {
    const { sockets, bridge, timers } = setup(1000);
    sockets[0]!.open();
    const call = bridge.call({ method: 'listSessions', params: {} });
    timers.advance(1000);
    await expect(call).resolves.toMatchObject({ ok: false, error: { code: 'HOST_TIMEOUT' } });
    // A late answer is ignored.
    sockets[0]!.receive({ id: 1, ok: true, result: [] });
  });

  it('dispose closes the socket, answers pending calls and stops reconnecting', async () => {
    const { sockets, bridge, timers } = setup();
    const pending = bridge.call({ method: 'listSessions', params: {} });
    bridge.dispose();
    await expect(pending).resolves.toMatchObject({ ok: false, error: { code: 'HOST_UNREACHABLE' } });
    expect(sockets[0]!.closed).toBe(true);
    expect(bridge.status.state).toBe('closed');
    timers.advance(60_000);
    expect(sockets).toHaveLength(1);
    await expect(bridge.call({ method: 'x', params: {} })).resolves.toMatchObject({ ok: false });
  });

  it('builds the socket URL from the page location and its token', () => {
    expect(hostSocketUrl({ protocol: 'http:', host: '127.0.0.1:4321', search: '?token=a%2Bb&x=1' })).toBe('ws://127.0.0.1:4321/host?token=a%2Bb');
    expect(hostSocketUrl({ protocol: 'https:', host: 'h', search: '' })).toBe('wss://h/host?token=');
  });

  it('parses frames and computes capped, jittered backoff', () => {
    expect(parseFrame('{"id":3,"ok":true,"result":1}')).toEqual({ response: { id: 3, ok: true, result: 1 } });
    expect(parseFrame('{"push":{"kind":"sessions/changed"}}')).toEqual({ push: { kind: 'sessions/changed' } });
    expect(parseFrame(42)).toBeUndefined();
    expect([1, 2, 3, 10].map((n) => backoffDelay(n, () => 0.5))).toEqual([250, 500, 1000, 10_000]);
    expect(backoffDelay(1, () => 0)).toBe(200);
    expect(backoffDelay(1, () => 0.999)).toBe(300);
  });
});
