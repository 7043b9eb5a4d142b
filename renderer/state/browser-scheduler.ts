/**
 * The browser frame scheduler: requestAnimationFrame, raced by a timeout so that hidden windows
 * (where rAF pauses) still apply the live feed. DOM-only.
 */
import type { FrameScheduler } from './frame-batcher.js';

export const animationFrameScheduler: FrameScheduler = (callback) => {
  let done = false;
  const run = (): void => {
    if (done) return;
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    callback();
  };
  const frame = requestAnimationFrame(run);
  const timer = setTimeout(run, 250);
  return () => {
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
};
