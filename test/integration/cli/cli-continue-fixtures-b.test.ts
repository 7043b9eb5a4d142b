/**
 * Issue 20 item 1 through the real CLI: every importable OpenHands and DeepSeek Harness fixture with tool calls,
 * imported, forked into a folder and resumed on the scripted server in strict thinking mode
 * (`resume CHILD --base-url URL --model M "continue"`), completes its turn with no rejection at
 * all: a custom endpoint gets `reasoning_content` on every tool-call message by default (`""` when
 * none is known) and results go in call order. The other formats: the sibling
 * cli-continue-fixtures-*.test.ts file (split so the two run side by side).
 */
import { describe } from 'vitest';
import { continueEveryFixture, thinkingCli } from '../../support/thinking-cli.js';

const cli = thinkingCli('forkline-cli-thinking-b');

describe('continuing OpenHands and DeepSeek Harness logs on a strict thinking endpoint', () => {
  continueEveryFixture(cli, ['openhands', 'deepseek-harness']);
});
