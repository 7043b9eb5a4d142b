/**
 * The Settings dialog's sub-forms with unsaved input (a price row being added or edited, MCP servers
 * or a trace-export endpoint edited but not saved, a team store URL or an API key typed): each
 * reports itself while it holds such input, and the dialog's Save stays disabled until they are
 * saved or cancelled, naming them beside it (Save closes the dialog, which would drop them silently).
 */
import { createContext, useContext, useEffect } from 'react';

/** Reports a sub-form's unsaved input: `what` names it and the way out (e.g. "the price form (Save price or Cancel)"); undefined = nothing open. */
export type ReportSubForm = (key: string, what: string | undefined) => void;

export const SubFormsContext = createContext<ReportSubForm | undefined>(undefined);

/** Reports, while `what` is defined, that the sub-form `key` holds unsaved input (nothing outside the Settings dialog). */
export function useOpenSubForm(key: string, what: string | undefined): void {
  const report = useContext(SubFormsContext);
  useEffect(() => {
    if (!report) return;
    report(key, what);
    return () => report(key, undefined);
  }, [report, key, what]);
}

/** The reason Save is unavailable, as one sentence (undefined when no sub-form is open). */
export function blockedSaveReason(open: readonly string[]): string | undefined {
  if (open.length === 0) return undefined;
  if (open.length === 1) return `Finish ${open[0]!} first.`;
  return `Finish these first: ${open.slice(0, -1).join(', ')} and ${open.at(-1)!}.`;
}
