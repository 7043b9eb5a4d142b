/**
 * What a panel that opens inside a timeline row (the fan-out form, the budget field under a budget
 * stop) asks of the timeline around it: to take focus without the view losing it. The timeline
 * stops following the tail (the tail would push a grown row above the view) and scrolls the panel
 * into sight once its row has been measured: all of it when it fits, else from its top with the
 * focused control in sight. Outside a timeline the control is simply focused.
 */
import { createContext, useContext } from 'react';

export interface TimelineView {
  /** Focuses `control`, a field of `panel`, and keeps both in the timeline's view (see the file comment). */
  focusInPanel(panel: HTMLElement, control: HTMLElement): void;
}

const OUTSIDE_A_TIMELINE: TimelineView = { focusInPanel: (_panel, control) => control.focus() };

/** Provided by the timeline to its rows. */
export const TimelineViewContext = createContext<TimelineView>(OUTSIDE_A_TIMELINE);

/** The timeline the calling row is in (or plain focus outside one). */
export function useTimelineView(): TimelineView {
  return useContext(TimelineViewContext);
}

/** A vertical extent on the screen (client pixels). */
export interface Span {
  readonly top: number;
  readonly bottom: number;
}

/**
 * How far (px, positive = down) a scroll view showing `view` must scroll to show `panel`: all of
 * it when it fits (the least move that does), else its top at the view's top — or further, until
 * `focus` (a control in the panel) is in sight. 0 when nothing needs to move.
 */
export function revealDelta(view: Span, panel: Span, focus?: Span): number {
  if (panel.bottom - panel.top <= view.bottom - view.top) {
    if (panel.top < view.top) return panel.top - view.top;
    if (panel.bottom > view.bottom) return panel.bottom - view.bottom;
    return 0;
  }
  const delta = panel.top - view.top;
  const target = focus ?? panel;
  return target.bottom - delta > view.bottom ? target.bottom - view.bottom : delta;
}
