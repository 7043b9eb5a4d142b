/**
 * The host's answers that label the branch picker: for each fork pair (parent, child), the first
 * prompt each typed after the child's fork point, read from `compareSessions(parent, child)`.
 *
 * Answers are kept per child with the pair's signature (both sessions' event counts and status
 * from the sidebar list), so a pair is asked again only after one of the two sessions changed;
 * the previous answer stays on screen meanwhile. Lives as long as the picker is open.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { HostClient, SessionSummary } from '../../../shared/api.js';
import type { ForkPair, ForkPromptState } from '../../../shared/branch-tree.js';
import { describeError } from '../../host/host-client.js';

interface Answer {
  readonly signature: string;
  readonly state: ForkPromptState;
}

function summarySignature(s: SessionSummary | undefined): string {
  return s ? `${s.eventCount}:${s.status}` : '-';
}

export function useForkPrompts(client: Pick<HostClient, 'compareSessions'>, pairs: readonly ForkPair[], sessions: readonly SessionSummary[]): ReadonlyMap<string, ForkPromptState> {
  const [answers, setAnswers] = useState<ReadonlyMap<string, Answer>>(() => new Map());
  // What has been asked (child → signature), so a pair is asked once per signature.
  const asked = useRef(new Map<string, string>());
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const wanted = useMemo(() => {
    const byId = new Map(sessions.map((s) => [s.id, s]));
    return pairs.map((p) => ({ ...p, signature: `${summarySignature(byId.get(p.parent))}|${summarySignature(byId.get(p.child))}` }));
  }, [pairs, sessions]);
  const wantedKey = wanted.map((w) => `${w.parent}>${w.child}@${w.signature}`).join(' ');

  useEffect(() => {
    for (const w of wanted) {
      if (asked.current.get(w.child) === w.signature) continue;
      asked.current.set(w.child, w.signature);
      const settle = (state: ForkPromptState): void => {
        if (!mounted.current || asked.current.get(w.child) !== w.signature) return;
        setAnswers((prev) => new Map(prev).set(w.child, { signature: w.signature, state }));
      };
      client.compareSessions({ a: w.parent, b: w.child, files: false }).then(
        (result) => {
          const prompts = {
            ...(result.a.stats.firstPrompt !== undefined ? { parentPrompt: result.a.stats.firstPrompt } : {}),
            ...(result.b.stats.firstPrompt !== undefined ? { childPrompt: result.b.stats.firstPrompt } : {}),
          };
          settle({ state: 'ready', prompts });
        },
        (error: unknown) => settle({ state: 'error', message: describeError(error) }),
      );
    }
    // `wantedKey` captures everything `wanted` says (`wanted` itself is a new array every render).
    // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by wantedKey, see above
  }, [client, wantedKey]);

  return useMemo(() => new Map([...answers].map(([child, answer]) => [child, answer.state])), [answers]);
}
