/**
 * A bash command that leaves processes behind (the fault class of issue 10): a child in the tool's
 * process group, a child that called `setsid`, and a `setsid` daemon whose parent already exited.
 * Each writes its pid to a file in the working folder (`bg.pid`, `setsid.pid`, `daemon.pid`); once
 * all three run it writes `started.txt`, then waits; 30 s later each child would write `late-*.txt`.
 */
export const LEFT_BEHIND_SCRIPT = [
  '(sleep 30; echo late > late-bg.txt) & echo $! > bg.pid',
  "setsid bash -c 'sleep 30; echo late > late-setsid.txt' & echo $! > setsid.pid",
  "( setsid bash -c 'echo $$ > daemon.pid; sleep 30; echo late > late-daemon.txt' & )",
  'while [ ! -s daemon.pid ]; do sleep 0.01; done',
  'echo started > started.txt',
  'wait',
].join('\n');

/** The pid files the script writes. */
export const LEFT_BEHIND_PID_FILES = ['bg.pid', 'setsid.pid', 'daemon.pid'] as const;
