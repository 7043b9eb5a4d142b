import { describe, expect, it } from 'vitest';
import { SessionController } from '../../../renderer/state/session-controller.js';
import { ev, evs, flush, ManualFrames, ScriptedClient, subscribeResult } from './fakes.js';

function setup() {
  const host = new ScriptedClient();
  const frames = new ManualFrames();
  const controller = new SessionController('s1', { client: host.client, schedule: frames.schedule });
  return { host, frames, controller };
}

describe('SessionController', () => {
  it('subscribes from 0, then applies a frame of pushes in one store update', async () => {
    const { host, frames, controller } = setup();
    const started = controller.start();
    expect(host.subscribeCalls.map((c) => c.fromSeq)).toEqual([0]);
    host.subscribeCalls[0]!.answer.resolve(subscribeResult('sub1', evs(0, 9)));
    await started;
    expect(controller.store.getState()).toMatchObject({ phase: 'ready', lastSeq: 9 });
    let updates = 0;
    controller.store.subscribe(() => updates++);
    for (let s = 10; s < 10 + 128; s++) controller.handlePush({ kind: 'session/events', subscriptionId: 'sub1', sessionId: 's1', events: [ev(s)] });
    controller.handlePush({ kind: 'session/status', sessionId: 's1', status: 'running' });
    controller.handlePush({ kind: 'session/status', sessionId: 'other', status: 'running' });
    expect(updates).toBe(0);
    frames.frame();
    expect(updates).toBe(1);
    expect(controller.store.getState()).toMatchObject({ lastSeq: 137, status: 'running' });
    expect(controller.stats.flushes).toBe(1);
  });

  it('ignores pushes of other subscriptions and resubscribes from lastSeq + 1 on a hole', async () => {
    const { host, frames, controller } = setup();
    const started = controller.start();
    host.subscribeCalls[0]!.answer.resolve(subscribeResult('sub1', evs(0, 4)));
    await started;
    controller.handlePush({ kind: 'session/events', subscriptionId: 'stale', sessionId: 's1', events: [ev(5)] });
    controller.handlePush({ kind: 'session/events', subscriptionId: 'sub1', sessionId: 's1', events: [ev(5), ev(8)] });
    frames.frame();
    expect(controller.store.getState().lastSeq).toBe(5);
    expect(host.subscribeCalls.map((c) => c.fromSeq)).toEqual([0, 6]);
    expect(host.unsubscribed).toEqual(['sub1']);
    // While resubscribing, new-subscription pushes that arrive early are kept and replayed.
    controller.handlePush({ kind: 'session/events', subscriptionId: 'sub2', sessionId: 's1', events: [ev(9), ev(10)] });
    frames.frame();
    host.subscribeCalls[1]!.answer.resolve(subscribeResult('sub2', evs(6, 8)));
    await flush();
    expect(controller.store.getState().lastSeq).toBe(10);
    expect(controller.stats.holes).toBe(1);
  });

  it('coalesces concurrent resubscribes and keeps loaded events when a resubscribe fails', async () => {
    const { host, controller } = setup();
    const started = controller.start();
    host.subscribeCalls[0]!.answer.resolve(subscribeResult('sub1', evs(0, 2)));
    await started;
    const a = controller.resubscribe();
    const b = controller.resubscribe();
    expect(host.subscribeCalls).toHaveLength(2);
    host.subscribeCalls[1]!.answer.reject(new Error('unreachable'));
    await flush();
    // The second request runs after the first settles.
    expect(host.subscribeCalls).toHaveLength(3);
    host.subscribeCalls[2]!.answer.resolve(subscribeResult('sub3', evs(3, 3)));
    await Promise.all([a, b]);
    expect(controller.store.getState()).toMatchObject({ phase: 'ready', lastSeq: 3 });
  });

  it('shows an error when the first subscribe fails', async () => {
    const { host, controller } = setup();
    const started = controller.start();
    host.subscribeCalls[0]!.answer.reject(Object.assign(new Error('nope'), { code: 'SESSION_NOT_FOUND' }));
    await started;
    expect(controller.store.getState()).toMatchObject({ phase: 'error', error: { message: 'Error: nope' } });
  });

  it('dispose unsubscribes and ignores later pushes and answers', async () => {
    const { host, frames, controller } = setup();
    const started = controller.start();
    host.subscribeCalls[0]!.answer.resolve(subscribeResult('sub1', evs(0, 0)));
    await started;
    controller.handlePush({ kind: 'session/events', subscriptionId: 'sub1', sessionId: 's1', events: [ev(1)] });
    controller.dispose();
    frames.frame();
    expect(host.unsubscribed).toEqual(['sub1']);
    expect(controller.store.getState().lastSeq).toBe(0);
  });
});
