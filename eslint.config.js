// Lint rules, including the layer map of docs/architecture.md §2 (a bad import fails `npm run lint`,
// which CI and `npm test` run). The layer map is an allow-list checked by the local rule
// eslint-rules/layers.js (with a no-cycle rule); the per-folder `no-restricted-imports` blocks below
// only keep packages and Node APIs out of the layers that must not use them.
import js from '@eslint/js';
import forkline from './eslint-rules/layers.js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'path', 'child_process', 'os', 'http', 'net', 'crypto', 'worker_threads'];
const noNode = nodeBuiltins.map((name) => ({ group: [name], message: 'This layer runs in any runtime: no Node APIs.' }));

/**
 * What each layer may import besides itself (relative imports, type imports included). A file's
 * layer is the longest entry that prefixes its path; a source file under electron/, shared/ or
 * renderer/ in no layer is an error. Must stay acyclic (the rule checks it).
 */
const LAYERS = {
  shared: [],
  'electron/platform': ['shared'],
  'electron/session': ['shared'],
  'electron/llm': ['shared'],
  'electron/workspace': ['shared', 'electron/platform'],
  // Fan-out's pure parts: the check runner, branch reports and ranking (the run itself is a host service).
  'electron/fanout': ['shared', 'electron/store', 'electron/workspace'],
  'electron/tools': ['shared', 'electron/platform'],
  'electron/store': ['shared', 'electron/platform', 'electron/session'],
  'electron/import': ['shared', 'electron/session'],
  'electron/mcp': ['shared', 'electron/tools'],
  'electron/agent': ['shared', 'electron/session', 'electron/llm', 'electron/tools'],
  // The price list (a pinned package) and the agent's spend guard built from it.
  'electron/pricing': ['shared', 'electron/agent'],
  'electron/replay': ['shared', 'electron/platform', 'electron/session', 'electron/llm', 'electron/tools', 'electron/agent', 'electron/workspace'],
  // The team store (issue 27): a shared PostgreSQL database sessions are published to and read from.
  'electron/team': ['shared', 'electron/platform', 'electron/session', 'electron/store'],
  // Portable session bundles (issue 26): export with redaction, verified all-or-nothing import.
  'electron/bundle': ['shared', 'electron/platform', 'electron/session', 'electron/store', 'electron/tools', 'electron/workspace'],
  // OpenTelemetry traces of sessions (issue 26): one-shot OTLP export and the live exporter.
  'electron/telemetry': ['shared', 'electron/session', 'electron/store'],
  'electron/host': [
    'shared',
    'electron/platform',
    'electron/session',
    'electron/store',
    'electron/import',
    'electron/llm',
    'electron/tools',
    'electron/mcp',
    'electron/agent',
    'electron/workspace',
    'electron/fanout',
    'electron/pricing',
    'electron/bundle',
    'electron/telemetry',
    'electron/team',
    'electron/replay',
  ],
  'electron/cli': [
    'shared',
    'electron/platform',
    'electron/session',
    'electron/store',
    'electron/llm',
    'electron/tools',
    'electron/agent',
    'electron/host',
    'electron/workspace',
    'electron/fanout',
    'electron/pricing',
    'electron/bundle',
    'electron/telemetry',
    'electron/team',
    'electron/replay',
  ],
  'electron/cli.ts': ['shared', 'electron/platform', 'electron/session', 'electron/store', 'electron/llm', 'electron/tools', 'electron/agent', 'electron/host', 'electron/cli'],
  'electron/main.ts': ['shared', 'electron/platform', 'electron/store', 'electron/host'],
  'electron/preload.ts': ['shared'],
  renderer: ['shared'],
};

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
  {
    files: ['electron/**/*.ts', 'shared/**/*.ts', 'renderer/**/*.{ts,tsx}'],
    plugins: { forkline },
    rules: {
      'forkline/layers': ['error', { layers: LAYERS, roots: ['electron', 'shared', 'renderer'] }],
      'forkline/no-cycle': 'error',
    },
  },
  // Type-aware rules on the product code (not the tests): a promise nobody awaits or catches, and a
  // switch over a union that misses a member, are the faults reviews miss.
  {
    files: ['electron/**/*.ts', 'shared/**/*.ts', 'renderer/**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  // React's rules of hooks (a hook called conditionally breaks state) and complete effect/memo dependencies.
  {
    files: ['renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  // Generic electron rule first: the per-layer blocks below override it and also forbid electron.
  // Which folder may import which is the forkline/layers table above, not these blocks.
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
      'no-restricted-imports': ['error', { patterns: [...noNode, { group: ['electron', 'react', 'better-sqlite3'], message: 'shared/ uses no packages with a runtime (Electron, React, SQLite).' }] }],
    },
  },
  {
    files: ['electron/session/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...noNode, { group: ['electron', 'better-sqlite3'], message: 'electron/session is pure: no Electron, no SQLite.' }] }],
    },
  },
  {
    files: ['electron/import/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [...noNode, { group: ['electron', 'better-sqlite3'], message: 'electron/import is pure: no Electron, no SQLite; it writes through an ImportSink.' }] },
      ],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', { patterns: [...noNode, { group: ['electron', 'better-sqlite3', 'node-pty'], message: 'The renderer talks only through HostApi (shared/).' }] }],
    },
  },
);
