import { describe, expect, it } from 'vitest';
import { createTodoWriteTool, TODO_MAX_ITEMS } from '../../../electron/tools/builtin/todo-write.js';
import { expectToolError, makeCtx } from './helpers.js';

const tool = createTodoWriteTool();
const ctx = makeCtx('/nonexistent-workspace-not-used');

describe('todo_write', () => {
  it('confirms the list and returns it as meta', async () => {
    const todos = [
      { content: 'Read the failing test', status: 'completed' as const },
      { content: 'Fix the parser', status: 'in_progress' as const },
      { content: 'Run the suite', status: 'pending' as const },
    ];
    const out = await tool.execute({ todos }, ctx);
    expect(out.content).toBe('Todo list updated: 3 tasks (1 completed, 1 in progress, 1 pending).');
    expect(out.meta).toEqual({ todos });
    expect(out.isError).toBeUndefined();
  });

  it('accepts an empty list as clearing it', async () => {
    const out = await tool.execute({ todos: [] }, ctx);
    expect(out.content).toBe('Todo list cleared.');
    expect(out.meta).toEqual({ todos: [] });
  });

  it('rejects malformed items in the schema', () => {
    const parse = (todos: unknown) => tool.parameters.safeParse({ todos }).success;
    expect(parse([{ content: 'a', status: 'pending' }])).toBe(true);
    expect(parse([{ content: 'a', status: 'done' }])).toBe(false);
    expect(parse([{ content: '', status: 'pending' }])).toBe(false);
    expect(parse([{ content: 'a' }])).toBe(false);
    expect(parse([{ content: 'a', status: 'pending', priority: 'high' }])).toBe(false);
    expect(parse('a, b')).toBe(false);
    expect(parse(Array.from({ length: TODO_MAX_ITEMS + 1 }, (_, i) => ({ content: `t${i}`, status: 'pending' })))).toBe(false);
    expect(tool.parameters.safeParse({ todos: [], extra: true }).success).toBe(false);
  });

  it('rejects blank and duplicate tasks with INVALID_ARGS', async () => {
    await expectToolError(tool.execute({ todos: [{ content: '   ', status: 'pending' }] }, ctx), 'INVALID_ARGS', /blank/);
    await expectToolError(
      tool.execute(
        {
          todos: [
            { content: 'Build', status: 'pending' },
            { content: 'Build ', status: 'completed' },
          ],
        },
        ctx,
      ),
      'INVALID_ARGS',
      /todos\[1\] repeats the task "Build"/,
    );
  });

  it('is a read-risk todo tool that is not concurrency-safe', () => {
    expect(tool.risk).toBe('read');
    expect(tool.presentation).toBe('todo');
    expect(tool.isConcurrencySafe?.({ todos: [] })).toBe(false);
  });
});
