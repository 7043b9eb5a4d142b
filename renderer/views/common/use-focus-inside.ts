/**
 * Whether keyboard focus is (or was last) inside an element: true from a `focusin` inside it until
 * one outside it. Removing the focused element fires no `focusin`, so after a panel's close button
 * went away this still says the focus was the panel's — which tells a closing panel to name where
 * focus goes, and tells it not to when focus was elsewhere (another action's target wins then).
 */
import { useEffect, useRef, type RefObject } from 'react';

export function useFocusInside(ref: RefObject<HTMLElement | null>): RefObject<boolean> {
  const inside = useRef(false);
  useEffect(() => {
    inside.current = ref.current?.contains(document.activeElement) ?? false;
    const onFocusIn = (e: FocusEvent): void => {
      inside.current = ref.current?.contains(e.target as Node) ?? false;
    };
    document.addEventListener('focusin', onFocusIn);
    return () => document.removeEventListener('focusin', onFocusIn);
  }, [ref]);
  return inside;
}
