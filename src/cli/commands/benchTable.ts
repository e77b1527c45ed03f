// The bench tables' two helpers: a number to fixed places ('-' for none) and a plain-text table with
// columns padded to their widest cell.

export const fmt = (x: number | undefined, d = 1): string => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));

export function table(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n') + '\n';
}
