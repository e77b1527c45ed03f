// Colours: one per run (by its colorIndex), and one per series when a chart shows a single run.
const RUN_COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];
const SERIES_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd'];

export const runColor = (i: number): string => RUN_COLORS[((i % RUN_COLORS.length) + RUN_COLORS.length) % RUN_COLORS.length];
export const seriesColor = (i: number): string => SERIES_COLORS[i % SERIES_COLORS.length];
export const DASHES = [undefined, '6 3', '2 3', '8 3 2 3'];

/** A token's background by its probability: red (unlikely) through yellow to green (certain). */
export function logpColor(logp: number): string {
  const p = Math.min(1, Math.max(0, Math.exp(logp)));
  return `hsl(${Math.round(120 * p)} 70% 82%)`;
}
