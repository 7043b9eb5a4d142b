/**
 * React plumbing: the runtime (app store, host client) and the open session (vanilla store +
 * timeline projector) reach components through context; components read through selectors
 * (`useShallow` for arrays/objects they build).
 */
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { HostClient } from '../../shared/api.js';
import type { Timeline } from '../../shared/timeline.js';
import type { AppState } from '../state/app-store.js';
import type { AppRuntime, OpenSession } from '../state/app-runtime.js';
import type { SessionFacts } from '../state/session-store.js';

export const RuntimeContext = createContext<AppRuntime | null>(null);
const SessionContext = createContext<OpenSession | null>(null);

export function useRuntime(): AppRuntime {
  const runtime = useContext(RuntimeContext);
  if (!runtime) throw new Error('useRuntime outside <RuntimeContext.Provider>');
  return runtime;
}

export function useClient(): HostClient {
  return useRuntime().client;
}

export function useApp<T>(selector: (state: AppState) => T): T {
  return useStore(useRuntime().app, selector);
}

/** Opens `sessionId` for the subtree (shared with other scopes of the same session). */
export function SessionScope({ sessionId, children }: { readonly sessionId: string | undefined; readonly children: ReactNode }): ReactNode {
  const runtime = useRuntime();
  const [session, setSession] = useState<OpenSession | null>(null);
  useEffect(() => {
    if (!sessionId) {
      setSession(null);
      return;
    }
    const opened = runtime.acquire(sessionId);
    setSession(opened);
    return () => runtime.release(opened);
  }, [runtime, sessionId]);
  const value = session && session.controller.sessionId === sessionId ? session : null;
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useOpenSession(): OpenSession | null {
  return useContext(SessionContext);
}

export function useRequiredSession(): OpenSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('no open session in context');
  return session;
}

export function useSession<T>(selector: (facts: SessionFacts) => T): T {
  return useStore(useRequiredSession().controller.store, selector);
}

/** The session's timeline, folded incrementally from its event log. */
export function useTimeline(): Timeline {
  const session = useRequiredSession();
  const events = useStore(session.controller.store, (s) => s.events);
  const prelude = useStore(session.controller.store, (s) => s.prelude);
  return useMemo(() => session.projector.project(events, prelude), [session, events, prelude]);
}
