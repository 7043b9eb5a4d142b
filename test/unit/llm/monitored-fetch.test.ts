import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdleWatchdog } from '../../../electron/llm/idle-watchdog.js';
import { DoneLineScanner, monitoredFetch } from '../../../electron/llm/monitored-fetch.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('DoneLineScanner', () => {
  it('finds [DONE] at every split point, with any line ending', () => {
    for (const stream of ['data: {"a":1}\n\ndata: [DONE]\n\n', 'data: {"a":1}\r\n\r\ndata:[DONE]\r\n\r\n', ': keep-alive\r\rdata: [DONE]\r\r', 'data: {}\n\ndata: [DONE]']) {
      for (let cut = 0; cut <= stream.length; cut++) {
        const scanner = new DoneLineScanner();
        scanner.push(bytes(stream.slice(0, cut)));
        scanner.push(bytes(stream.slice(cut)));
        expect([stream, cut, scanner.sawDone]).toEqual([stream, cut, true]);
      }
    }
  });

  it('does not mistake other lines for [DONE]', () => {
    const scanner = new DoneLineScanner();
    for (const part of ['data: {"text":"data: [DONE]"}\n\n', 'data: [DONE]x\n', ': data: [DONE]\n', `data: ${'x'.repeat(100)}`, '[DONE]\n']) scanner.push(bytes(part));
    expect(scanner.sawDone).toBe(false);
  });

  it('keeps a multi-byte character split across chunks intact', () => {
    const scanner = new DoneLineScanner();
    const all = bytes('data: "é"\n\ndata: [DONE]\n\n');
    scanner.push(all.slice(0, 8)); // cuts inside é
    expect(scanner.push(all.slice(8))).toBe(true);
  });
});

describe('monitoredFetch', () => {
  it('reports headers, activity per received chunk and [DONE], and passes the bytes through unchanged', async () => {
    const events: string[] = [];
    const parts = ['data: {"x":1}\n\n', ': keep-alive\n\n', 'data: [DO', 'NE]\n\n'];
    const base = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (const part of parts) controller.enqueue(bytes(part));
            controller.close();
          },
        }),
        { status: 200, headers: { 'x-request-id': 'req_1' } },
      );
    const wrapped = monitoredFetch(base, {
      onResponse: (status, headers) => events.push(`response ${status} ${headers.get('x-request-id')}`),
      onActivity: () => events.push('activity'),
      onDone: () => events.push('done'),
    });
    const response = await wrapped('http://x/chat/completions');
    expect(await response.text()).toBe(parts.join(''));
    expect(events).toEqual(['activity', 'response 200 req_1', 'activity', 'activity', 'activity', 'activity', 'activity', 'done']);
  });

  it('leaves error responses untouched', async () => {
    const original = new Response('{"error":{}}', { status: 429 });
    const wrapped = monitoredFetch(async () => original, {});
    expect(await wrapped('http://x')).toBe(original);
  });
});

describe('IdleWatchdog', () => {
  afterEach(() => vi.useRealTimers());

  it('fires once after the timeout without activity; touch restarts; pause stops counting', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    const dog = new IdleWatchdog(100, fired);
    dog.start();
    vi.advanceTimersByTime(90);
    dog.touch();
    vi.advanceTimersByTime(90);
    expect(fired).not.toHaveBeenCalled();
    dog.pause();
    vi.advanceTimersByTime(1000);
    expect(fired).not.toHaveBeenCalled();
    dog.touch(); // ignored while paused
    dog.resume();
    vi.advanceTimersByTime(99);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    expect(dog.hasFired).toBe(true);
    dog.touch();
    vi.advanceTimersByTime(1000);
    expect(fired).toHaveBeenCalledTimes(1);
    dog.dispose();
  });

  it('never fires after dispose', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    const dog = new IdleWatchdog(10, fired);
    dog.start();
    dog.dispose();
    vi.advanceTimersByTime(100);
    expect(fired).not.toHaveBeenCalled();
  });
});
