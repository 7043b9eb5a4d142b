/**
 * MCP stdio servers run under the process supervisor (docs/architecture.md §6, issue 10 with issue 15): a
 * server that ignores the end of its stdin (as badly written servers do) still does not outlive a
 * Forkline that was SIGKILLed in the middle of one of its tool calls. Real CLI process, real MCP
 * server process (the official SDK), real scripted OpenAI-compatible endpoint.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/agent-harness.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

const ROOT = join(import.meta.dirname, '../../..');
const SERVER = join(import.meta.dirname, '../../support/mcp/test-mcp-server.mjs');

let llm: ScriptedLlm;
let base: string;

beforeAll(async () => {
  llm = await startScriptedLlm();
  base = mkdtempSync(join(tmpdir(), 'forkline-mcp-supervised-'));
});
afterAll(async () => {
  await llm.close();
  rmSync(base, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MCP stdio servers under the process supervisor', () => {
  it('a stubborn server in the middle of a call does not outlive a SIGKILLed forkline', { timeout: 60_000 }, async () => {
    const work = join(base, 'work');
    mkdirSync(work);
    const mark = join(base, 'server.pid');
    const config = join(base, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { calc: { command: process.execPath, args: [SERVER, '--stubborn', '--tools', 'slow'], env: { MCP_MARK_FILE: mark } } } }));
    llm.enqueue(toolCallResponse([{ id: 'slow1', name: 'mcp__calc__slow', arguments: '{}' }]), textResponse('never reached'));
    const cli = spawn(
      process.execPath,
      [
        join(ROOT, 'bin/forkline.js'),
        'run',
        '--cwd',
        work,
        '--base-url',
        llm.baseUrl,
        '--model',
        'm',
        '--approval',
        'allow',
        '--mcp-config',
        config,
        '--data-dir',
        join(base, 'data'),
        'do the slow thing',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    let output = '';
    cli.stdout.on('data', (d: Buffer) => (output += d.toString()));
    cli.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<void>((resolve) => cli.on('exit', () => resolve()));
    try {
      await waitFor(() => existsSync(mark) && readFileSync(mark, 'utf8') !== '', 30_000);
    } catch (error) {
      throw new Error(`the MCP tool never started; forkline printed:\n${output}`, { cause: error });
    }
    const serverPid = Number(readFileSync(mark, 'utf8'));
    expect(alive(serverPid)).toBe(true);

    cli.kill('SIGKILL');
    await exited;
    // The watcher sees its pipe close and ends every marked process: SIGTERM, then SIGKILL.
    await waitFor(() => !alive(serverPid), 10_000);
    expect(alive(serverPid)).toBe(false);
  });
});
