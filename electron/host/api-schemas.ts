/**
 * Argument schemas for every HostApi method: the host validates each call at the boundary before
 * any handler sees it (renderer input is untrusted, STYLE §6 "IPC and host").
 */
import { z } from 'zod';
import type { HostMethodName } from '../../shared/api.js';

const id = z.string().min(1).max(200);
const text = z.string().min(1).max(1_000_000);
const empty = z.object({}).strict();
const providerChoice = z
  .object({ provider: z.string().min(1).max(64), baseUrl: z.string().url().max(2000), model: z.string().min(1).max(200), reasoningEffort: z.string().max(32).optional() })
  .strict();

export const HOST_PARAM_SCHEMAS: { readonly [M in HostMethodName]: z.ZodType } = {
  listSessions: empty,
  createSession: z.object({ cwd: z.string().min(1).max(4096), title: z.string().max(500).optional() }).strict(),
  subscribeSession: z.object({ sessionId: id, fromSeq: z.number().int().min(0) }).strict(),
  unsubscribeSession: z.object({ subscriptionId: id }).strict(),
  renameSession: z.object({ sessionId: id, title: z.string().max(500) }).strict(),
  deleteSession: z.object({ sessionId: id }).strict(),
  forkSession: z.object({ sessionId: id, atSeq: z.number().int().min(0).optional(), worktree: z.boolean().optional() }).strict(),
  compareSessions: z.object({ a: id, b: id, files: z.boolean().optional() }).strict(),
  exportSession: z.object({ sessionId: id }).strict(),
  importSession: z.object({ jsonl: z.string().min(1).max(512 * 1024 * 1024) }).strict(),
  inspectRequest: z.object({ sessionId: id, turn: z.number().int().min(1), step: z.number().int().min(1) }).strict(),
  followup: z.object({ sessionId: id, text }).strict(),
  steer: z.object({ sessionId: id, text }).strict(),
  cancel: z.object({ sessionId: id }).strict(),
  compactSession: z.object({ sessionId: id }).strict(),
  decideApproval: z.object({ sessionId: id, approvalId: id, decision: z.enum(['allow-once', 'reject']) }).strict(),
  getSettings: empty,
  updateSettings: z.object({ active: providerChoice.optional(), approvalPolicy: z.enum(['ask', 'allow', 'deny']).optional() }).strict(),
  setApiKey: z.object({ provider: z.string().min(1).max(64), apiKey: z.string().max(4096) }).strict(),
  listModels: z.object({ provider: z.string().min(1).max(64), baseUrl: z.string().url().max(2000).optional() }).strict(),
  testConnection: z.object({ provider: z.string().min(1).max(64), baseUrl: z.string().url().max(2000).optional(), model: z.string().min(1).max(200), apiKey: z.string().max(4096).optional() }).strict(),
  chooseWorkspace: empty,
  listFolders: z.object({ path: z.string().max(4096).optional() }).strict(),
  openTerminal: z.object({ sessionId: id, cols: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) }).strict(),
  writeTerminal: z.object({ terminalId: id, data: z.string().max(1_000_000) }).strict(),
  resizeTerminal: z.object({ terminalId: id, cols: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) }).strict(),
  closeTerminal: z.object({ terminalId: id }).strict(),
};
