// What one training run returns: the types train.ts makes and the resume files, the member threads and the
// population commands read (kept apart from train.ts so those files do not import back into it).
import type { StepPoint } from '../rl/dualStatic';

/** What trainRun returns: train's summary, and each step's tokens and lambda_tok (for sweeps). */
export interface TrainResult { summary: TrainSummary; history: StepPoint[] }
export type TrainSummary = Record<string, unknown> & { final: Record<string, number>; best: Record<string, number> | null; wallSeconds: number };
