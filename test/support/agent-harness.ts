/**
 * A real agent over real parts for loop tests: a SQLite file in a temp folder, the session
 * repository with write-behind, the real `OpenAiCompatibleClient` talking to the scripted
 * OpenAI-compatible server on 127.0.0.1, the real tool registry and pipeline. Only the model's
 * choices are scripted.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { ApprovalPolicyName, SessionEvent } from '../../shared/events.js';
import { Agent, type AgentOptions } from '../../electron/agent/agent.js';
import { OpenAiCompatibleClient } from '../../electron/llm/openai-compatible-client.js';
import type { ProviderSettings } from '../../electron/llm/providers.js';
import { SessionRepository, type LiveSession } from '../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../electron/store/sqlite-session-store.js';
import { createBuiltinTools } from '../../electron/tools/builtin-tools.js';
import { InMemoryFileReadTracker } from '../../electron/tools/file-read-tracker.js';
import { ToolRegistry } from '../../electron/tools/registry.js';
import { defineTool, ToolError, type ToolDefinition } from '../../electron/tools/tool.js';
import type { ScriptedLlm } from './scripted-llm/index.js';

export interface HarnessOptions {
  readonly llm: ScriptedLlm;
  readonly tools?: readonly ToolDefinition[];
  readonly approvalPolicy?: ApprovalPolicyName;
  readonly agent?: Partial<AgentOptions>;
  /** Reuse an existing workspace / data folder (resume tests). */
  readonly dir?: string;
  readonly sessionId?: string;
  /** Client settings over the default (custom provider speaking DeepSeek's dialect). */
  readonly client?: Partial<ProviderSettings>;
}

export interface Harness {
  readonly dir: string;
  readonly workspace: string;
  readonly store: SqliteSessionStore;
  readonly repository: SessionRepository;
  readonly live: LiveSession;
  readonly agent: Agent;
  readonly client: OpenAiCompatibleClient;
  /** Event types in order. */
  types(): string[];
  events(): readonly SessionEvent[];
  /** Flushes, stops the agent, closes the store (keeps files unless `remove`). */
  close(remove?: boolean): Promise<void>;
}

/** Builds a harness; the workspace is `<dir>/ws`. */
export async function createHarness(options: HarnessOptions): Promise<Harness> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'forkline-agent-'));
  const workspace = join(dir, 'ws');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(workspace, { recursive: true });
  const store = new SqliteSessionStore(join(dir, 'sessions.db'));
  const repository = new SessionRepository(store, { newId: randomUUID, writeWindowMs: 5, invariants: 'enforce' });
  const live = options.sessionId ? repository.resume(options.sessionId) : repository.create({ cwd: realpathSync(workspace) });
  // DeepSeek's wire dialect (reasoning_content echoed, thinking fields sent): the default product path.
  const client = new OpenAiCompatibleClient({ provider: 'custom', dialect: 'deepseek', baseUrl: options.llm.baseUrl, model: 'scripted-model', idleTimeoutMs: 5_000, ...options.client });
  const agent = new Agent({
    session: live.session,
    flush: () => live.flush(),
    model: client,
    tools: new ToolRegistry(options.tools ?? createBuiltinTools()),
    files: new InMemoryFileReadTracker(),
    cwd: realpathSync(workspace),
    config: () => ({ provider: 'custom', model: 'scripted-model' }),
    approvalPolicy: () => options.approvalPolicy ?? 'allow',
    newId: randomUUID,
    platform: 'linux',
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        const t = setTimeout(resolve, Math.min(ms, 20));
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(t);
            reject(signal.reason as Error);
          },
          { once: true },
        );
      }),
    ...options.agent,
  });
  return {
    dir,
    workspace: realpathSync(workspace),
    store,
    repository,
    live,
    agent,
    client,
    types: () => live.session.events.map((e) => e.type),
    events: () => live.session.events,
    close: async (remove = true) => {
      await agent.dispose();
      await live.release();
      repository.dispose();
      store.close();
      if (remove) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A concurrency-safe test tool that waits `ms` (respecting cancellation) and records when it
 * started and finished, so tests can see overlap and commit order.
 */
export function waitTool(log: string[]): ToolDefinition {
  return defineTool({
    name: 'wait',
    description: 'Waits ms milliseconds and returns the label.',
    parameters: z.object({ ms: z.number().int().min(0), label: z.string() }).strict(),
    risk: 'read',
    presentation: 'generic',
    isConcurrencySafe: () => true,
    execute: (args, ctx) =>
      new Promise((resolve, reject) => {
        log.push(`start ${args.label}`);
        const timer = setTimeout(() => {
          log.push(`end ${args.label}`);
          resolve({ content: `waited ${args.label}` });
        }, args.ms);
        ctx.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            log.push(`abort ${args.label}`);
            reject(new ToolError('ABORTED', `wait ${args.label} was cancelled`));
          },
          { once: true },
        );
      }),
  });
}

/** A non-concurrency-safe tool (an exclusive barrier) that records when it ran. */
export function barrierTool(log: string[]): ToolDefinition {
  return defineTool({
    name: 'barrier',
    description: 'An exclusive step.',
    parameters: z.object({ label: z.string() }).strict(),
    risk: 'read',
    presentation: 'generic',
    execute: async (args) => {
      log.push(`barrier ${args.label}`);
      return { content: `barrier ${args.label}` };
    },
  });
}

/** A tool that blocks until the test calls `release()` (to act while a tool is running). */
export function gateTool(): { tool: ToolDefinition; started: Promise<void>; release: () => void } {
  let release!: () => void;
  let markStarted!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const started = new Promise<void>((r) => (markStarted = r));
  const tool = defineTool({
    name: 'gate',
    description: 'Waits for the test.',
    parameters: z.object({}).strict(),
    risk: 'read',
    presentation: 'generic',
    execute: async (_args, ctx) => {
      markStarted();
      await Promise.race([released, new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new ToolError('ABORTED', 'gate cancelled')), { once: true }))]);
      return { content: 'gate opened' };
    },
  });
  return { tool, started, release };
}

/** Polls `predicate` every 5 ms until true (or throws after `timeoutMs`). */
export async function waitFor(predicate: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error('waitFor timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}
