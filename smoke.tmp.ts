import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SessionRepository } from './electron/store/session-repository.ts';
import { MemorySessionStore } from './electron/store/memory-session-store.ts';
import { InvariantChecker } from './electron/session/invariant.ts';
import { Session } from './electron/session/session.ts';
import { formatImportSummary } from './shared/import-summary.ts';
const root = '/work/wt/importers/test/fixtures/agent-session-logs';
let n = 0;
const store = new MemorySessionStore();
const repo = new SessionRepository(store, { newId: () => `id-${++n}`, pid: process.pid });
for (const dir of readdirSync(root)) {
  if (dir.endsWith('.md')) continue;
  for (const f of readdirSync(join(root, dir))) {
    const text = readFileSync(join(root, dir, f), 'utf8');
    try {
      const s = repo.importText(text, f);
      console.log('\n=== ' + f); console.log(formatImportSummary(s).join('\n'));
      const events = store.readAll(s.sessionId);
      const c = new InvariantChecker();
      for (const e of events) { const v = c.violation(e); if (v) console.log('VIOLATION', v); c.commit(e); }
      const sess = new Session({ header: store.get(s.sessionId)!.header, seed: events, invariants: 'report' });
      console.log('warnings', sess.warnings.length, 'messages', sess.deriveMessages().length);
    } catch (e) { console.log('\n=== ' + f, 'ERROR', e); }
  }
}
