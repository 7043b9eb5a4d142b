// Lint rules, including the layer boundaries of DESIGN §2 (a bad import fails `npm test`).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'path', 'child_process', 'os', 'http', 'net', 'crypto', 'worker_threads'];
const noNode = nodeBuiltins.map((name) => ({ group: [name], message: 'This layer runs in any runtime: no Node APIs.' }));

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', 'node_modules/**', 'test-results/**', 'coverage/**', '.vitest-*.json', 'resources/stub-electron/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always'],
    },
  },
  // Generic electron rule first: the per-layer blocks below override it and also forbid electron.
  {
    files: ['electron/**/*.ts'],
    ignores: ['electron/main.ts', 'electron/preload.ts', 'electron/host/transport/ipc-*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['electron'], message: 'Only main.ts, preload.ts and the IPC transport may import electron (the rest runs under plain Node).' }] }],
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...noNode, { group: ['electron', 'electron/*', '../electron/*', '../renderer/*', 'react', 'better-sqlite3'], message: 'shared/ depends on nothing but itself.' }] }],
    },
  },
  {
    files: ['electron/session/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...noNode, { group: ['electron', '../store/*', '../agent/*', '../host/*', '../llm/*', '../tools/*', 'better-sqlite3'], message: 'electron/session is pure: it sees only shared/.' }] }],
    },
  },
  {
    files: ['electron/import/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...noNode, { group: ['electron', '../store/*', '../agent/*', '../host/*', '../llm/*', '../tools/*', 'better-sqlite3'], message: 'electron/import is pure: it sees session and shared, and writes through an ImportSink.' }] }],
    },
  },
  {
    files: ['electron/llm/**/*.ts', 'electron/tools/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['electron', '../session/*', '../../session/*', '../store/*', '../../store/*', '../agent/*', '../../agent/*', '../host/*', '../../host/*'], message: 'llm and tools depend on shared/ only.' }] }],
    },
  },
  {
    files: ['electron/platform/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['electron', '../session/*', '../store/*', '../agent/*', '../host/*', '../llm/*', '../tools/*'], message: 'electron/platform (operating-system facts: process identity, process tree) depends on nothing but Node and shared/.' }] }],
    },
  },
  {
    files: ['electron/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['electron', '../session/*', '../store/*', '../agent/*', '../host/*', '../llm/*'], message: 'mcp depends on tools and shared only (the host composes it).' }] }],
    },
  },
  {
    files: ['electron/store/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['electron', '../agent/*', '../host/*', '../llm/*', '../tools/*'], message: 'store depends on session and shared only.' }] }],
    },
  },
  {
    files: ['electron/agent/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['electron', '../host/*', '../../host/*'], message: 'agent must not depend on the host.' }] }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', { patterns: [...noNode, { group: ['electron', '../electron/*', '../../electron/*', 'better-sqlite3', 'node-pty'], message: 'The renderer talks only through HostApi (shared/).' }] }],
    },
  },
);
