/**
 * From which seq a session's history may grant standing approvals (`approval/rule`, DESIGN §6).
 * A log read from a file is untrusted input (issue 8, provenance): a rule in it must not let a
 * continued session run commands without asking. So rules count only in events this installation
 * wrote: none of an imported session's stored history, and in a fork, nothing it inherited (through
 * any chain of forks) from an imported session.
 */
import { isImportedSession, type SessionHeader } from '../../shared/events.js';

/**
 * @param header the session's header.
 * @param storedLength events stored when the session was loaded (its whole history so far).
 * @param headerOf looks up another session's header (parents), undefined when it is gone.
 * @returns the first seq whose `approval/rule` events are honoured.
 */
export function approvalRulesTrustedFrom(header: SessionHeader, storedLength: number, headerOf: (id: string) => SessionHeader | undefined): number {
  if (isImportedSession(header)) return storedLength;
  let trustedFrom = 0;
  // Events below `inherited` in this session came from the ancestor being looked at.
  let inherited = header.seedLength ?? 0;
  let parentId = header.parentSession;
  const seen = new Set<string>([header.id]);
  while (parentId !== undefined && !seen.has(parentId) && inherited > 0) {
    seen.add(parentId);
    const parent = headerOf(parentId);
    if (parent === undefined) {
      // A parent we cannot see: do not trust what came from it.
      trustedFrom = Math.max(trustedFrom, inherited);
      break;
    }
    if (isImportedSession(parent)) trustedFrom = Math.max(trustedFrom, inherited);
    inherited = Math.min(inherited, parent.seedLength ?? 0);
    parentId = parent.parentSession;
  }
  return trustedFrom;
}
