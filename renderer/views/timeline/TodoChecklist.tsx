/** A todo list (the `todo_write` tool's arguments, or a `todo/write` event) as a checklist. */
import type { ReactNode } from 'react';
import type { TodoItem } from '../../../shared/events.js';

const MARK: Record<TodoItem['status'], string> = { completed: '☑', in_progress: '◐', pending: '☐' };

export function TodoChecklist({ todos }: { readonly todos: readonly TodoItem[] }): ReactNode {
  if (todos.length === 0) return <div className="muted">(empty list)</div>;
  const done = todos.filter((t) => t.status === 'completed').length;
  return (
    <div className="todo-checklist" data-testid="todo-checklist">
      <div className="muted">
        {done} of {todos.length} done
      </div>
      <ul>
        {todos.map((t, i) => (
          <li key={i} className={`todo status-${t.status}`} data-testid="todo-item" data-status={t.status}>
            <span className="todo-mark" aria-label={t.status.replace('_', ' ')}>
              {MARK[t.status]}
            </span>
            <span className="todo-text">{t.content}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
