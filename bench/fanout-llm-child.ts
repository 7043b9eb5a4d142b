/**
 * The scripted server of fanout.bench.ts in a process of its own, so its CPU does not compete with
 * the branches on the benchmark's one thread (the bench measures Forkline, not the test server).
 * Answers with {@link instantReply}; prints its base URL on the first line of stdout, then, on
 * stdin's end (the parent going away or closing the pipe), closes and exits. Each request's CPU is
 * this process's: it prints `CPU <user+system µs>` on stdout when asked with a `cpu` line on stdin.
 */
import { createInterface } from 'node:readline';
import { startScriptedLlm } from '../test/support/scripted-llm/index.js';
import { instantReply, type Message } from './fanout-fixture.js';

const llm = await startScriptedLlm({ handler: (request) => instantReply(request.body.messages as Message[]) });
console.log(llm.baseUrl);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === 'cpu') {
    const cpu = process.cpuUsage();
    console.log(`CPU ${cpu.user + cpu.system}`);
  }
});
lines.on('close', () => {
  void llm.close().then(() => process.exit(0));
});
