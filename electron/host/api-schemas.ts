/**
 * Argument schemas for every HostApi method: the host validates each call at the boundary before
 * any handler sees it (renderer input is untrusted, STYLE §6 "IPC and host").
 */
import { z } from 'zod';
import type { HostMethodName } from '../../shared/api.js';

const id = z.string().min(1).max(200);
/** Largest text chunk of a streaming import (UTF-16 units); clients send ≤ 1 MiB. */
export const IMPORT_CHUNK_MAX_CHARS = 8 * 1024 * 1024;
const text = z.string().min(1).max(1_000_000);
const empty = z.object({}).strict();
const providerChoice = z
  .object({ provider: z.string().min(1).max(64), baseUrl: z.string().url().max(2000), model: z.string().min(1).max(200), reasoningEffort: z.string().max(32).optional() })
  .strict();

const tokens = z.number().int().min(1).max(100_000_000);
/** A price override as Settings sends it; ranges are checked by parsePriceOverrides (errors name the field). */
const priceOverride = z
  .object({
    baseUrl: z.string().max(2000).optional(),
    provider: z.string().max(64).optional(),
    model: z.string().max(200),
    inputMtok: z.number(),
    outputMtok: z.number(),
    cacheReadMtok: z.number().optional(),
    cacheWriteMtok: z.number().optional(),
    reasoningMtok: z.number().optional(),
  })
  .strict();
const modelLimits = z.object({ baseUrl: z.string().max(2000), model: z.string().min(1).max(200), contextWindow: tokens.optional(), maxOutputTokens: tokens.optional() }).strict();

/**
 * The schemas with their precise types (for the type test that checks each one against its
 * HostApi param type: test/unit/security/host-api-schemas.test-d.ts).
 */
export const PARAM_SCHEMAS = {
  listSessions: empty,
  createSession: z.object({ cwd: z.string().min(1).max(4096), title: z.string().max(500).optional() }).strict(),
  subscribeSession: z.object({ sessionId: id, fromSeq: z.number().int().min(0), tail: z.number().int().min(1).max(1_000_000).optional() }).strict(),
  readEvents: z
    .object({ sessionId: id, fromSeq: z.number().int().min(0), toSeq: z.number().int().min(0) })
    .strict()
    .refine((p) => p.toSeq >= p.fromSeq && p.toSeq - p.fromSeq <= 200_000, { message: 'toSeq must be ≥ fromSeq and at most 200,000 past it' }),
  readEnvelope: z.object({ sessionId: id, beforeSeq: z.number().int().min(0) }).strict(),
  listRequests: z.object({ sessionId: id }).strict(),
  unsubscribeSession: z.object({ subscriptionId: id }).strict(),
  renameSession: z.object({ sessionId: id, title: z.string().max(500) }).strict(),
  deleteSession: z.object({ sessionId: id }).strict(),
  forkSession: z.object({ sessionId: id, atSeq: z.number().int().min(0).optional(), worktree: z.boolean().optional(), cwd: z.string().min(1).max(4096).optional() }).strict(),
  compareSessions: z.object({ a: id, b: id, files: z.boolean().optional() }).strict(),
  rankBranches: z.object({ sessionIds: z.array(id).min(1).max(64) }).strict(),
  branchDiff: z.object({ sessionId: id, comparedWith: z.array(id).max(64).optional() }).strict(),
  proposeFanoutCheck: z.object({ sessionId: id }).strict(),
  startFanout: z
    .object({
      sessionId: id,
      atSeq: z.number().int().min(0).optional(),
      prompt: z.string().min(1).max(200_000),
      variants: z
        .array(
          z
            .object({
              model: z.string().min(1).max(200).optional(),
              effort: z.string().min(1).max(40).optional(),
              prompt: z.string().min(1).max(200_000).optional(),
              system: z.string().min(1).max(50_000).optional(),
            })
            .strict(),
        )
        .min(2)
        .max(8),
      check: z.string().min(1).max(4096).optional(),
      concurrency: z.number().int().min(1).max(8).optional(),
    })
    .strict(),
  cancelFanout: z.object({ fanoutId: id }).strict(),
  applyBranch: z.object({ sessionId: id }).strict(),
  rewindSession: z.object({ sessionId: id, toSeq: z.number().int().min(0) }).strict(),
  discardBranch: z.object({ sessionId: id }).strict(),
  exportSession: z.object({ sessionId: id }).strict(),
  exportBundle: z.object({ sessionId: id, withFiles: z.boolean().optional() }).strict(),
  readDownload: z.object({ downloadId: id }).strict(),
  closeDownload: z.object({ downloadId: id }).strict(),
  importSession: z
    .object({
      jsonl: z
        .string()
        .min(1)
        .max(512 * 1024 * 1024),
      fileName: z.string().max(1000).optional(),
    })
    .strict(),
  importBegin: z.object({ fileName: z.string().max(1000), size: z.number().int().min(0).optional() }).strict(),
  importChunk: z.object({ importId: id, text: z.string().max(IMPORT_CHUNK_MAX_CHARS) }).strict(),
  importEnd: z.object({ importId: id }).strict(),
  importAbort: z.object({ importId: id }).strict(),
  importBundleBegin: z.object({ fileName: z.string().max(1000), size: z.number().int().min(0).optional() }).strict(),
  importBundleChunk: z.object({ importId: id, text: z.string().max(IMPORT_CHUNK_MAX_CHARS) }).strict(),
  importBundleEnd: z.object({ importId: id }).strict(),
  importBundleAbort: z.object({ importId: id }).strict(),
  inspectRequest: z
    .object({
      sessionId: id,
      turn: z.number().int().min(0).optional(),
      step: z.number().int().min(0).optional(),
      attempt: z.number().int().min(1).optional(),
      index: z.number().int().min(0).optional(),
    })
    .strict()
    .refine((p) => p.index !== undefined || (p.turn !== undefined && p.step !== undefined), { message: 'give an index, or a turn and a step' }),
  readRequestStream: z.object({ sessionId: id, index: z.number().int().min(0), limit: z.number().int().min(1).max(20_000).optional() }).strict(),
  searchSessions: z.object({ query: z.string().max(500), limit: z.number().int().min(1).max(200).optional(), sessionId: id.optional() }).strict(),
  replaySession: z.object({ sessionId: id }).strict(),
  listPlaygroundRuns: z.object({ sessionId: id, index: z.number().int().min(0).optional() }).strict(),
  startPlaygroundRun: z
    .object({
      sessionId: id,
      index: z.number().int().min(0),
      route: z.object({ provider: z.string().min(1).max(64), baseUrl: z.string().url().max(2000), model: z.string().min(1).max(200) }).strict(),
      edit: z
        .object({ system: z.string().max(2_000_000).optional(), messages: z.string().min(1).max(50_000_000), tools: z.string().min(1).max(5_000_000), params: z.string().min(1).max(10_000) })
        .strict(),
    })
    .strict(),
  cancelPlaygroundRun: z.object({ runId: id }).strict(),
  forkWithPrompt: z.object({ sessionId: id, messageId: id, text }).strict(),
  takeOverSession: z.object({ sessionId: id }).strict(),
  followup: z.object({ sessionId: id, text }).strict(),
  steer: z.object({ sessionId: id, text }).strict(),
  cancel: z.object({ sessionId: id }).strict(),
  compactSession: z.object({ sessionId: id }).strict(),
  decideApproval: z.object({ sessionId: id, approvalId: id, decision: z.enum(['allow-once', 'allow-session', 'reject']), commandPrefix: z.string().min(1).max(4096).optional() }).strict(),
  getSettings: empty,
  updateSettings: z
    .object({
      active: providerChoice.optional(),
      approvalPolicy: z.enum(['ask', 'allow', 'deny']).optional(),
      modelLimits: modelLimits.optional(),
      mcpServers: z.record(z.string().max(40), z.json()).optional(),
      prices: z.array(priceOverride).max(200).optional(),
      theme: z.enum(['light', 'dark', 'system']).optional(),
      forgetLearnedLimit: z
        .object({ baseUrl: z.string().max(2000), model: z.string().min(1).max(200) })
        .strict()
        .optional(),
      // The endpoint's own check (shared/otlp-endpoint.ts) names what is wrong with it.
      otlp: z
        .object({ endpoint: z.string().max(2000).optional(), includeContent: z.boolean().optional() })
        .strict()
        .optional(),
    })
    .strict(),
  setSessionBudget: z.object({ sessionId: id, sessionUsd: z.number().finite().optional(), sessionTokens: z.number().finite().optional(), turnUsd: z.number().finite().optional() }).strict(),
  setApiKey: z.object({ provider: z.string().min(1).max(64), apiKey: z.string().max(4096) }).strict(),
  listModels: z.object({ provider: z.string().min(1).max(64), baseUrl: z.string().url().max(2000).optional() }).strict(),
  testConnection: z
    .object({ provider: z.string().min(1).max(64), baseUrl: z.string().url().max(2000).optional(), model: z.string().min(1).max(200), apiKey: z.string().max(4096).optional() })
    .strict(),
  chooseWorkspace: empty,
  listFolders: z.object({ path: z.string().max(4096).optional() }).strict(),
  listMcpServers: empty,
  trustMcpConfig: z.object({ file: z.string().min(1).max(4096), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).strict(),
  openTerminal: z.object({ sessionId: id, cols: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) }).strict(),
  writeTerminal: z.object({ terminalId: id, data: z.string().max(1_000_000) }).strict(),
  resizeTerminal: z.object({ terminalId: id, cols: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) }).strict(),
  closeTerminal: z.object({ terminalId: id }).strict(),
  teamStatus: empty,
  setTeamSettings: z
    .object({
      storeUrl: z.string().max(4096).optional(),
      share: z
        .object({ workspace: z.string().min(1).max(4096), on: z.boolean() })
        .strict()
        .optional(),
    })
    .strict(),
  listTeamSessions: empty,
  searchTeamSessions: z.object({ query: z.string().min(1).max(500) }).strict(),
  openTeamSession: z.object({ teamSessionId: id }).strict(),
  forkTeamSession: z.object({ teamSessionId: id, cwd: z.string().min(1).max(4096), atSeq: z.number().int().min(0).optional() }).strict(),
} satisfies { readonly [M in HostMethodName]: z.ZodType };

/** Argument schema per HostApi method (keyed by the method union, so a missing one fails to compile). */
export const HOST_PARAM_SCHEMAS: { readonly [M in HostMethodName]: z.ZodType } = PARAM_SCHEMAS;
