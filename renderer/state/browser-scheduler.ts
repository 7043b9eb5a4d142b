/**
 * The browser frame scheduler: requestAnimationFrame, raced by a timeout so that hidden windows
 * (where rAF pauses) still apply the live feed, shared by every session's batcher so that all of
 * them flush in one callback per frame (one React commit; see `sharedFrameScheduler`). DOM-only.
 */
import { sharedFrameScheduler, type FrameScheduler } from './frame-batcher.js';

const rafRacedByTimeout: FrameScheduler = (callback) => {
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

export const animationFrameScheduler: FrameScheduler = sharedFrameScheduler(rafRacedByTimeout);
