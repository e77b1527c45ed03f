// The AgentPO comparison (envs.md section 2): the frozen Actor alone, with the
// untrained Collaborator, and with the trained one, on the held-out set.

/** One arm of the comparison: accuracy with its 95% interval, and the tokens it cost. */
export interface ComparisonRow {
  name: string; // 'actor alone' | 'untrained collaborator' | 'trained collaborator'
  n: number; // held-out problems
  accuracy: number;
  lo: number; // 95% interval (Wilson score)
  hi: number;
  tokens: number; // mean message tokens per episode
  extras: Record<string, number>;
}

export interface Comparison { step: number; rows: ComparisonRow[] }
