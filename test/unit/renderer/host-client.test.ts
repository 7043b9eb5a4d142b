import { describe, expect, it } from 'vitest';
import type { HostBridge, HostPush, RpcResponse } from '../../../shared/api.js';
import { ForklineError } from '../../../shared/errors.js';
import { CLIENT_ERROR_CODES, createHostClient, describeError, HostCallError, unwrapResponse } from '../../../renderer/host/host-client.js';

function bridge(
  answer: (request: { method: string; params: unknown }) => Promise<RpcResponse> | RpcResponse,
): HostBridge & { requests: { method: string; params: unknown }[]; listeners: Set<(p: HostPush) => void> } {
  const requests: { method: string; params: unknown }[] = [];
  const listeners = new Set<(p: HostPush) => void>();
  return {
    requests,
    listeners,
    call: async (request) => {
      requests.push(request);
      return answer(request);
    },
    onPush: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

describe('createHostClient', () => {
  it('calls the bridge with {method, params} and unwraps ok results', async () => {
    const b = bridge(() => ({ id: 1, ok: true, result: [{ id: 's1' }] }));
    const client = createHostClient(b);
    await expect(client.listSessions({})).resolves.toEqual([{ id: 's1' }]);
    await client.renameSession({ sessionId: 's1', title: 'x' });
    expect(b.requests).toEqual([
      { method: 'listSessions', params: {} },
      { method: 'renameSession', params: { sessionId: 's1', title: 'x' } },
    ]);
    expect(client.listSessions).toBe(client.listSessions);
  });

  it('throws a HostCallError carrying the host {name, code, message}', async () => {
    const client = createHostClient(bridge(() => ({ id: 1, ok: false, error: { name: 'SessionForkError', code: 'OPEN_TURN', message: 'turn 3 is open' } })));
    const error = await client.forkSession({ sessionId: 's1', atSeq: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostCallError);
    expect(ForklineError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ name: 'SessionForkError', code: 'OPEN_TURN', message: 'turn 3 is open', method: 'forkSession' });
    expect(HostCallError.is(error, 'OPEN_TURN')).toBe(true);
    expect(describeError(error)).toBe('turn 3 is open [OPEN_TURN]');
  });

  it('reports malformed envelopes and transport failures with client codes', async () => {
    const malformed = createHostClient(bridge(() => ({ nope: true }) as unknown as RpcResponse));
    await expect(malformed.getSettings({})).rejects.toMatchObject({ code: CLIENT_ERROR_CODES.badResponse });
    const broken = createHostClient(bridge(() => Promise.reject(new Error('socket gone'))));
    await expect(broken.getSettings({})).rejects.toMatchObject({ code: CLIENT_ERROR_CODES.unreachable, message: 'socket gone' });
    const sparse = createHostClient(bridge(() => ({ id: 1, ok: false, error: {} }) as unknown as RpcResponse));
    await expect(sparse.getSettings({})).rejects.toMatchObject({ name: 'HostError', code: 'UNKNOWN' });
  });

  it('exposes only whitelisted methods plus onPush', () => {
    const b = bridge(() => ({ id: 1, ok: true, result: null }));
    const client = createHostClient(b) as unknown as Record<string, unknown>;
    expect(client['evalSomething']).toBeUndefined();
    expect(client['then']).toBeUndefined();
    expect('listSessions' in client).toBe(true);
    const seen: HostPush[] = [];
    const off = (client['onPush'] as (l: (p: HostPush) => void) => () => void)((p) => seen.push(p));
    for (const l of b.listeners) l({ kind: 'sessions/changed' });
    off();
    expect(b.listeners.size).toBe(0);
    expect(seen).toEqual([{ kind: 'sessions/changed' }]);
  });

  it('unwrapResponse passes results through', () => {
    expect(unwrapResponse('m', { id: 1, ok: true, result: 5 })).toBe(5);
    expect(() => unwrapResponse('m', null)).toThrow(HostCallError);
  });
});
