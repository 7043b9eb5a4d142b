/**
 * `todo_write{todos}`: replaces the session's task list (the model's plan). The tool only
 * validates and echoes; the agent loop logs the list (`todo/write`) and the UI shows it.
 */
import { z } from 'zod';
import type { TodoItem } from '../../../shared/events.js';
import { defineTool, ToolError, type ToolDefinition } from '../tool.js';

/** Most items in one list. */
export const TODO_MAX_ITEMS = 100;

const todoItem = z
  .object({
    content: z.string().min(1).max(2000).describe('What the task is, as a short imperative sentence.'),
    status: z.enum(['pending', 'in_progress', 'completed']).describe('pending, in_progress (the task being worked on now) or completed.'),
  })
  .strict();

const parameters = z
  .object({
    todos: z
      .array(todoItem)
      .max(TODO_MAX_ITEMS)
      .describe('The complete, updated task list (it replaces the previous one). Keep one task in_progress at a time; mark tasks completed as soon as they are done.'),
  })
  .strict();

/**
 * Result content: `Todo list updated: N tasks (C completed, I in progress, P pending).`
 * (`Todo list cleared.` for an empty list).
 *
 * meta: `{todos}` — the list as given ({@link TodoItem}[]).
 *
 * Errors: `INVALID_ARGS` for a task whose content is blank or repeated.
 */
export function createTodoWriteTool(): ToolDefinition<typeof parameters> {
  return defineTool({
    name: 'todo_write',
    description:
      'Write the task list for the current work: pass the complete list each time (it replaces the previous one). ' +
      'Use it for multi-step tasks to plan and to show progress; update statuses as you go.',
    parameters,
    risk: 'read',
    presentation: 'todo',
    isConcurrencySafe: () => false,
    async execute(args) {
      const todos: TodoItem[] = args.todos.map((t) => ({ content: t.content, status: t.status }));
      const seen = new Set<string>();
      todos.forEach((todo, i) => {
        const key = todo.content.trim();
        if (key === '') throw new ToolError('INVALID_ARGS', `todos[${i}].content is blank. Give every task a short description.`);
        if (seen.has(key)) throw new ToolError('INVALID_ARGS', `todos[${i}] repeats the task "${key}". Each task must appear once; update its status instead.`);
        seen.add(key);
      });
      if (todos.length === 0) return { content: 'Todo list cleared.', meta: { todos: [] } };
      const count = (status: TodoItem['status']) => todos.filter((t) => t.status === status).length;
      return {
        content: `Todo list updated: ${todos.length} task${todos.length === 1 ? '' : 's'} (${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending).`,
        meta: { todos: todos.map((t) => ({ content: t.content, status: t.status })) },
      };
    },
  });
}
