/**
 * Session ownership (docs/architecture.md §7): who holds a session live, and whether that holder still runs.
 *
 * An owner record names a process by pid + start identity + host (electron/platform/process-identity.ts),
 * so a pid that the system handed to another process (after the owner died, above all after a
 * reboot) never passes for the owner. The repository claims and releases owners inside one store
 * transaction (`SessionStore.atomically`); this module only judges records and words the errors.
 */
import { StoreError } from '../../shared/errors.js';
import { currentProcessIdentity, isPidAlive, processLiveness, processStartedAtMs, type OwnerIdentity, type ProcessIdentity, type ProcessLiveness } from '../platform/process-identity.js';
import type { SessionOwner } from './session-store.js';

/** What the operating system says about processes (injectable for tests). */
export interface ProcessProbe {
  liveness(identity: ProcessIdentity): ProcessLiveness;
  isPidAlive(pid: number): boolean;
  /** Approximate epoch ms a running process started, if known. */
  startedAtMs(pid: number): number | undefined;
}

/** The real probe (/proc on Linux, `ps` elsewhere). */
export const SYSTEM_PROCESS_PROBE: ProcessProbe = { liveness: processLiveness, isPidAlive, startedAtMs: processStartedAtMs };

/** This process as a session owner. */
export function selfIdentity(): OwnerIdentity {
  return currentProcessIdentity();
}

/** How a session's owner record stands, seen from this process. */
export type OwnerState =
  | { readonly kind: 'none' }
  /** The record names this very process (another claim of ours, or a repository in this process). */
  | { readonly kind: 'self'; readonly owner: SessionOwner }
  /** Another process that runs (or may run: another host, or no way to tell) holds it. */
  | { readonly kind: 'live'; readonly owner: SessionOwner }
  /** The owner is gone: its process ended, or its pid now names an unrelated process. */
  | { readonly kind: 'dead'; readonly owner: SessionOwner; readonly reason: 'exited' | 'pid-reused' };

/**
 * A schema-2 owner mark has no start identity; its claim time is at most the session's last
 * append. A process with that pid that started later than this (plus clock slack) cannot be it.
 */
const LEGACY_START_SLACK_MS = 2000;

/** Judges an owner record. Never throws. */
export function ownerState(owner: SessionOwner | undefined, self: OwnerIdentity, probe: ProcessProbe = SYSTEM_PROCESS_PROBE): OwnerState {
  if (owner === undefined) return { kind: 'none' };
  // A process on another machine cannot be checked from here: treat it as running.
  if (owner.host !== undefined && owner.host !== self.host) return { kind: 'live', owner };
  if (owner.pid === self.pid) {
    if (owner.start === undefined || self.start === undefined || owner.start === self.start) return { kind: 'self', owner };
    return { kind: 'dead', owner, reason: 'pid-reused' };
  }
  const liveness = probe.liveness(owner);
  if (liveness === 'running') return { kind: 'live', owner };
  if (liveness === 'gone') return { kind: 'dead', owner, reason: probe.isPidAlive(owner.pid) ? 'pid-reused' : 'exited' };
  if (owner.start === undefined) {
    const started = probe.startedAtMs(owner.pid);
    if (started !== undefined && started > owner.since + LEGACY_START_SLACK_MS) return { kind: 'dead', owner, reason: 'pid-reused' };
  }
  return { kind: 'live', owner };
}

/** `pid 123 on host-a, since 2026-12-01T10:00:00.000Z` */
export function describeOwner(owner: SessionOwner): string {
  return `pid ${owner.pid}${owner.host !== undefined ? ` on ${owner.host}` : ''}, since ${new Date(owner.since).toISOString()}`;
}

/** SESSION_LIVE for a session another running Forkline holds, saying where it runs and how to take over. */
export function sessionLiveError(sessionId: string, owner: SessionOwner): StoreError {
  return new StoreError(
    'SESSION_LIVE',
    `session ${sessionId} is open in another running Forkline (${describeOwner(owner)}). Close it there first, or take it over ` +
      `(CLI: --take-over; app: "Take over"); the other one then stops saving to this session.`,
  );
}

/** The STALE_APPEND of a writer whose claim another process replaced. */
export function lostClaim(sessionId: string, pid: number | null | undefined, host: string | null | undefined): StoreError {
  const who = pid === null || pid === undefined ? 'no process holds it now' : `it is now held by pid ${pid}${host ? ` on ${host}` : ''}`;
  return new StoreError('STALE_APPEND', `session ${sessionId} was taken over by another Forkline (${who}); this writer's events were not stored`);
}
