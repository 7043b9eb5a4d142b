/**
 * SQL stays confined to electron/store/sql.ts and the migration files electron/store/migrations/
 * (STYLE §6 "Store", reference runtime D7): no other source file under electron/ or shared/ holds
 * an SQL statement in a string or template literal. The PostgreSQL team store is the other database
 * adapter: its SQL stays inside electron/team/ (its queries and its own migrations).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const SQL_FILE = 'electron/store/sql.ts';
/** One file per schema migration (their DDL and backfill queries). */
const MIGRATIONS_DIR = 'electron/store/migrations/';
/** The PostgreSQL team store (docs/architecture.md, layer electron/team): its SQL lives in its own folder. */
const TEAM_STORE_DIR = 'electron/team/';
const SQL_KEYWORDS = /\b(SELECT\s.+\sFROM|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|CREATE\s+(TABLE|INDEX)|DROP\s+TABLE|ALTER\s+TABLE|PRAGMA\s+\w+|BEGIN\s+(IMMEDIATE|EXCLUSIVE)?|COMMIT)\b/;
const LITERAL = /'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts') || name.endsWith('.tsx')) out.push(path);
  }
  return out;
}

/** SQL-looking string literals of a source text (comments stripped first). */
export function sqlLiterals(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  return (code.match(LITERAL) ?? []).filter((literal) => SQL_KEYWORDS.test(literal));
}

describe('SQL resource boundary', () => {
  it('the detector finds SQL in literals and ignores prose', () => {
    expect(sqlLiterals("db.prepare('SELECT * FROM events WHERE x = ?')")).toHaveLength(1);
    expect(sqlLiterals('db.exec(`INSERT INTO t VALUES (1)`)')).toHaveLength(1);
    expect(sqlLiterals("const s = 'select the best option from the list';")).toHaveLength(0);
    expect(sqlLiterals('// SELECT x FROM y in a comment')).toHaveLength(0);
  });

  it('no file but electron/store/sql.ts and the migrations contains SQL', () => {
    const offenders: string[] = [];
    for (const file of [...sources(join(ROOT, 'electron')), ...sources(join(ROOT, 'shared'))]) {
      const rel = relative(ROOT, file);
      const posix = rel.split('\\').join('/');
      if (rel === SQL_FILE || posix.startsWith(MIGRATIONS_DIR) || posix.startsWith(TEAM_STORE_DIR)) continue;
      for (const literal of sqlLiterals(readFileSync(file, 'utf8'))) offenders.push(`${rel}: ${literal.slice(0, 80)}`);
    }
    expect(offenders).toEqual([]);
    expect(sqlLiterals(readFileSync(join(ROOT, SQL_FILE), 'utf8')).length).toBeGreaterThan(5);
  });
});
