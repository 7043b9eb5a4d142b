/** Fault points, configuration and ready report shared by the fault matrix test and its child (test/support/fault-child.ts). */

export const FAULT_POINTS = ['streaming', 'tool', 'approval', 'compaction', 'batch'] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

export interface FaultChildConfig {
  readonly dataDir: string;
  readonly workspace: string;
  readonly baseUrl: string;
  readonly point: FaultPoint;
  readonly readyFile: string;
  /** Context window given to the model for the compaction point (tokens). */
  readonly contextWindow?: number;
  /** How long the `batch` point blocks inside the transaction (ms). */
  readonly batchBlockMs?: number;
}

/** What the child writes to its ready file. */
export interface FaultReady {
  readonly pid: number;
  readonly sessionId: string;
  /** Events in the session when the fault point was reached (in memory). */
  readonly length: number;
  readonly supervisorMarker: string;
  readonly watcherPid?: number;
  /** Pids of the processes the tool left behind (`tool` point). */
  readonly toolPids?: readonly number[];
  /** The `tool/process` the agent logged (`tool` point). */
  readonly toolProcess?: { readonly pid: number; readonly pgid?: number; readonly start?: string };
}
