/**
 * examples/fix-sum.script.json is a consistent session for examples/fix-sum: played through the
 * real client it yields read_file → bash (fails) → edit_file → bash (passes) → answer, with the
 * argument names the built-in tools take, and applying its edit really makes `node test.js` pass.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolCallBlock } from '../../../shared/messages.js';
import { BlockAssembler } from '../../../electron/llm/assembler.js';
import { loadScriptFile, startScriptedLlm, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { collect, expectWellFormed, scriptedClient, userRequest } from './helpers.js';

const ROOT = join(import.meta.dirname, '../../..');
const ARGUMENT_KEYS: Record<string, string[]> = { read_file: ['path'], bash: ['command'], edit_file: ['path', 'old_string', 'new_string'] };

function runTests(dir: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, ['test.js'], { cwd: dir, encoding: 'utf8', timeout: 10_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('examples/fix-sum', () => {
  let llm: ScriptedLlm;
  let work: string;
  beforeAll(async () => {
    // Turn 1 of the script (its 6th reply answers a follow-up in turn 2).
    llm = await startScriptedLlm({ steps: loadScriptFile(join(ROOT, 'examples/fix-sum.script.json')).slice(0, 5) });
    work = mkdtempSync(join(tmpdir(), 'fix-sum-'));
    cpSync(join(ROOT, 'examples/fix-sum'), work, { recursive: true });
  });
  afterAll(async () => {
    await llm.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('the script fixes the project when its tool calls are carried out', async () => {
    const client = scriptedClient(llm.baseUrl, { provider: 'deepseek', model: 'deepseek-v4-flash', apiKey: 'sk-test' });
    const calls: ToolCallBlock[] = [];
    const finishes: string[] = [];
    let answer = '';
    for (let step = 0; step < 5; step++) {
      const chunks = await collect(client, userRequest('The test in this folder fails. Fix it.', { provider: 'deepseek', model: 'deepseek-v4-flash' }));
      expectWellFormed(chunks);
      const result = new BlockAssembler().pushAll(chunks).result();
      finishes.push(result.finish.kind);
      expect(result.usage?.cacheReadTokens).toBeTypeOf('number');
      for (const block of result.blocks) {
        if (block.type === 'tool-call') calls.push(block);
        if (block.type === 'text' && step === 4) answer = block.text;
      }
    }
    expect(llm.pending).toBe(0);
    expect(finishes).toEqual(['tool-calls', 'tool-calls', 'tool-calls', 'tool-calls', 'stop']);
    expect(calls.map((c) => c.name)).toEqual(['read_file', 'bash', 'edit_file', 'bash']);
    expect(answer).toContain('passes');

    const before = runTests(work);
    expect(before.status).not.toBe(0);
    expect(before.output).toContain('the sum of an empty list is 0');
    for (const call of calls) {
      const args = JSON.parse(call.arguments) as Record<string, string>;
      expect(Object.keys(args).sort()).toEqual([...ARGUMENT_KEYS[call.name]!].sort());
      if (call.name === 'read_file') expect(readFileSync(join(work, args['path']!), 'utf8')).toContain('export function sum');
      if (call.name === 'bash') expect(args['command']).toBe('node test.js');
      if (call.name === 'edit_file') {
        const file = join(work, args['path']!);
        const source = readFileSync(file, 'utf8');
        expect(source.split(args['old_string']!).length - 1).toBe(1); // matches exactly once, as edit_file requires
        writeFileSync(file, source.replace(args['old_string']!, args['new_string']!));
      }
    }
    const after = runTests(work);
    expect(after).toEqual({ status: 0, output: 'all tests passed\n' });
  });
});
