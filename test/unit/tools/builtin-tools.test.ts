import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../../electron/tools/builtin-tools.js';
import { InMemoryFileReadTracker, createFileReadTracker } from '../../../electron/tools/file-read-tracker.js';

const tools = createBuiltinTools();
const byName = new Map(tools.map((t) => [t.name, t]));

describe('createBuiltinTools', () => {
  it('returns the eight built-ins with their risk classes and presentations', () => {
    expect(tools.map((t) => [t.name, t.risk, t.presentation])).toEqual([
      ['read_file', 'read', 'read'],
      ['write_file', 'write', 'diff'],
      ['edit_file', 'write', 'diff'],
      ['list_dir', 'read', 'search'],
      ['glob', 'read', 'search'],
      ['grep', 'read', 'search'],
      ['bash', 'exec', 'terminal'],
      ['todo_write', 'read', 'todo'],
    ]);
  });

  it('marks exactly reads, lists, globs and greps as concurrency-safe', () => {
    const sample: Record<string, unknown> = {
      read_file: { path: 'a' },
      write_file: { path: 'a', content: '' },
      edit_file: { path: 'a', old_string: 'a', new_string: 'b' },
      list_dir: { path: '.' },
      glob: { pattern: '*' },
      grep: { pattern: 'x' },
      bash: { command: 'ls' },
      todo_write: { todos: [] },
    };
    const safe = tools.filter((t) => t.isConcurrencySafe?.(sample[t.name] as never) === true).map((t) => t.name);
    expect(safe).toEqual(['read_file', 'list_dir', 'glob', 'grep']);
  });

  it('exposes the argument names of the spec as strict JSON schemas with a description on every field', () => {
    const expected: Record<string, string[]> = {
      read_file: ['path', 'offset', 'limit'],
      write_file: ['path', 'content'],
      edit_file: ['path', 'old_string', 'new_string', 'replace_all'],
      list_dir: ['path'],
      glob: ['pattern'],
      grep: ['pattern', 'path', 'glob'],
      bash: ['command', 'timeout_ms'],
      todo_write: ['todos'],
    };
    for (const tool of tools) {
      const schema = z.toJSONSchema(tool.parameters, { io: 'input' }) as { type: string; additionalProperties: boolean; properties: Record<string, { description?: string }> };
      expect(schema.type, tool.name).toBe('object');
      expect(schema.additionalProperties, tool.name).toBe(false);
      expect(Object.keys(schema.properties), tool.name).toEqual(expected[tool.name]);
      for (const [field, prop] of Object.entries(schema.properties)) expect(prop.description, `${tool.name}.${field}`).toMatch(/\S{3}/);
      expect(tool.description.length, tool.name).toBeGreaterThan(40);
    }
    const todoItem = (
      z.toJSONSchema(byName.get('todo_write')!.parameters, { io: 'input' }) as unknown as { properties: { todos: { items: { properties: Record<string, { description?: string }> } } } }
    ).properties.todos.items;
    expect(Object.keys(todoItem.properties)).toEqual(['content', 'status']);
  });
});

describe('InMemoryFileReadTracker', () => {
  it('remembers the last hash per path', () => {
    const tracker = createFileReadTracker();
    expect(tracker).toBeInstanceOf(InMemoryFileReadTracker);
    expect(tracker.lastRead('/w/a')).toBeUndefined();
    tracker.recordRead('/w/a', 'h1');
    tracker.recordRead('/w/a', 'h2');
    tracker.recordRead('/w/b', 'h3');
    expect(tracker.lastRead('/w/a')).toBe('h2');
    expect(tracker.lastRead('/w/b')).toBe('h3');
    expect(tracker.size).toBe(2);
  });
});
