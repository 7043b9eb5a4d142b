/**
 * A button that is unavailable while the call it started runs. A `disabled` button that holds focus
 * drops it to <body> (Chromium moves focus off it), so while busy it is only `aria-disabled` (and
 * `aria-busy`): it keeps focus and its busy label is read out; the click handler must ignore
 * presses while busy. Other reasons for being unavailable keep the real `disabled`.
 */
export interface BusyButtonProps {
  readonly disabled: boolean;
  readonly 'aria-disabled'?: true;
  readonly 'aria-busy'?: true;
}

/**
 * The props for such a button.
 * @param busy its call runs (the button keeps focus, presses are ignored by the handler);
 * @param unavailable other reasons it cannot be pressed now (a real `disabled`, unless busy).
 */
export function busyButtonProps(busy: boolean, unavailable = false): BusyButtonProps {
  return busy ? { disabled: false, 'aria-disabled': true, 'aria-busy': true } : { disabled: unavailable };
}
