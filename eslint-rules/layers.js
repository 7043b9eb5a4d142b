// Local ESLint plugin `forkline`: the layer map of docs/architecture.md §2 as an allow-list, and
// no import cycles between source files. Both count every import form: `import`, `import type`,
// `export … from`, and `import()` (a type-only import still ties two files together for a reader
// and for the compiler).
//
// - `forkline/layers`: each source file belongs to the first layer in the table whose path prefix
//   matches it; a relative import may reach only its own layer or one the table lists for it. A
//   file under a checked root (electron/, shared/, renderer/) that matches no layer is itself an
//   error, so a new folder cannot slip past the map — add it to the table in eslint.config.js.
//   The table itself must be acyclic (checked when the rule starts).
// - `forkline/no-cycle`: a file may not reach itself through relative imports (any layer, any
//   depth). The import graph is read with a small scanner (no type information), cached per lint run.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

/** Relative path from the repository root, with forward slashes. */
function repoPath(file) {
  return relative(root, file).split('\\').join('/');
}

/** The layer entry of a repository path (longest matching prefix), or undefined. */
function layerOf(path, layers) {
  let best;
  for (const name of Object.keys(layers)) {
    const prefix = name.endsWith('.ts') ? name : `${name}/`;
    if ((name.endsWith('.ts') ? path === prefix : path.startsWith(prefix)) && (!best || name.length > best.length)) best = name;
  }
  return best;
}

/** Resolves a relative specifier the way TypeScript's NodeNext resolution does for our sources. */
function resolveImport(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), base];
  for (const candidate of candidates) {
    try {
      if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    } catch {
      // unreadable: not a candidate
    }
  }
  return undefined;
}

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'";]*?\sfrom\s*['"](\.{1,2}\/[^'"]+)['"]|(?:^|[\s;(=])import\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|(?:^|[\s;])import\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Relative imports of a file, resolved to files (cached for the lint run). */
const edgeCache = new Map();
function edgesOf(file) {
  let edges = edgeCache.get(file);
  if (edges) return edges;
  edges = [];
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // a file that vanished has no edges
  }
  // Comments may quote imports; drop them before scanning.
  text = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  for (const match of text.matchAll(SPECIFIER)) {
    const target = resolveImport(file, match[1] ?? match[2] ?? match[3]);
    if (target && /\.tsx?$/.test(target)) edges.push(target);
  }
  edgeCache.set(file, edges);
  return edges;
}

/** A path of files from `from` to `to` through relative imports (both included), or undefined. */
function pathBetween(from, to) {
  const seen = new Set([from]);
  const stack = [[from, 0]];
  const path = [from];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const edges = edgesOf(top[0]);
    if (top[1] >= edges.length) {
      stack.pop();
      path.pop();
      continue;
    }
    const next = edges[top[1]++];
    if (next === to) return [...path, to];
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push([next, 0]);
    path.push(next);
  }
  return undefined;
}

/** Throws when the layer table allows a cycle between layers (it must be a partial order). */
function checkTableAcyclic(layers) {
  const state = new Map();
  const visit = (name, trail) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'open') throw new Error(`forkline/layers: the layer table has a cycle: ${[...trail, name].join(' -> ')}`);
    state.set(name, 'open');
    for (const dep of layers[name] ?? []) {
      if (!(dep in layers)) throw new Error(`forkline/layers: layer ${name} allows ${dep}, which is not in the table`);
      visit(dep, [...trail, name]);
    }
    state.set(name, 'done');
  };
  for (const name of Object.keys(layers)) visit(name, []);
}

/** Import-like nodes of the file being linted, with their specifier string. */
function importVisitors(check) {
  return {
    ImportDeclaration: (node) => check(node, node.source.value),
    ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
    ExportAllDeclaration: (node) => check(node, node.source.value),
    ImportExpression: (node) => node.source.type === 'Literal' && typeof node.source.value === 'string' && check(node, node.source.value),
  };
}

const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Relative imports follow the layer allow-list of docs/architecture.md §2; every source folder has a layer.' },
    schema: [{ type: 'object', properties: { layers: { type: 'object' }, roots: { type: 'array', items: { type: 'string' } } }, additionalProperties: false }],
  },
  create(context) {
    const { layers, roots } = context.options[0];
    checkTableAcyclic(layers);
    const file = repoPath(context.filename);
    if (!roots.some((r) => file.startsWith(`${r}/`))) return {};
    const own = layerOf(file, layers);
    if (own === undefined) {
      return {
        Program: (node) => context.report({ node, message: `${file} is in no layer of the table in eslint.config.js (docs/architecture.md §2): add its folder there with what it may import.` }),
      };
    }
    const allowed = new Set([own, ...layers[own]]);
    return importVisitors((node, specifier) => {
      if (!specifier.startsWith('.')) return;
      const target = repoPath(resolve(dirname(context.filename), specifier));
      const layer = layerOf(target.replace(/\.js$/, '.ts'), layers) ?? layerOf(target, layers);
      if (layer === undefined || allowed.has(layer)) return;
      context.report({ node, message: `${own} may not import ${layer} (${specifier}); it may import: ${[...allowed].join(', ')} (docs/architecture.md §2).` });
    });
  },
};

const noCycleRule = {
  meta: {
    type: 'problem',
    docs: { description: 'No import cycles between source files (type imports count).' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    if (!/\.tsx?$/.test(file)) return {};
    return importVisitors((node, specifier) => {
      if (!specifier.startsWith('.')) return;
      const target = resolveImport(file, specifier);
      if (!target) return;
      if (target === file) {
        context.report({ node, message: 'a file imports itself' });
        return;
      }
      // Report on the import that starts a way back to this file.
      const back = pathBetween(target, file);
      if (back === undefined) return;
      context.report({ node, message: `import cycle: ${[file, ...back].map(repoPath).join(' -> ')}` });
    });
  },
};

/** The `forkline` plugin. */
export default { meta: { name: 'forkline' }, rules: { layers: layersRule, 'no-cycle': noCycleRule } };
