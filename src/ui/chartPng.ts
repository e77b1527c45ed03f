// A chart as PNG: its title on top, its SVG (axis labels are part of it)
// drawn at 2x, its legend below, on a white canvas. Everything stays in the
// page (blob: URLs).

export interface LegendItem { label: string; color: string; mark: 'line' | 'dashed' | 'dot' | 'star' | 'cross'; /** the run it names: hovering the entry highlights the run */ runId?: string; /** a line's own dash pattern (SVG dasharray), when series are told apart by it */ dash?: string }

const TITLE_H = 24, LEGEND_ROW = 18, PAD = 8;

/** Legend rows for a width: items laid out left to right, wrapping (pure, for the layout of the PNG). */
export function legendRows(items: readonly LegendItem[], width: number, textWidth: (s: string) => number): LegendItem[][] {
  const rows: LegendItem[][] = [];
  let row: LegendItem[] = [], x = PAD;
  for (const it of items) {
    const w = 22 + textWidth(it.label) + 14;
    if (row.length && x + w > width - PAD) { rows.push(row); row = []; x = PAD; }
    row.push(it);
    x += w;
  }
  if (row.length) rows.push(row);
  return rows;
}

async function svgImage(svg: SVGSVGElement, width: number, height: number): Promise<HTMLImageElement> {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  const style = getComputedStyle(svg);
  clone.setAttribute('style', `font-family: ${style.fontFamily}; font-size: ${style.fontSize}`);
  const text = new XMLSerializer().serializeToString(clone);
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml;charset=utf-8' }));
  try {
    const img = new Image();
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the chart could not be drawn as an image'));
      img.src = url;
    });
    return img;
  } finally {
    URL.revokeObjectURL(url);
  }
}

export async function svgToPngBlob(svg: SVGSVGElement, title = '', legend: readonly LegendItem[] = [], background = '#ffffff', scale = 2): Promise<Blob> {
  const { width, height } = svg.getBoundingClientRect();
  if (width === 0 || height === 0) throw new Error('the chart has no size yet');
  const img = await svgImage(svg, width, height);
  const font = `12px ${getComputedStyle(svg).fontFamily || 'sans-serif'}`;
  const measure = document.createElement('canvas').getContext('2d');
  if (!measure) throw new Error('no 2D canvas here');
  measure.font = font;
  const rows = legendRows(legend, width, (s) => measure.measureText(s).width);
  const top = title ? TITLE_H : 0, bottom = rows.length ? rows.length * LEGEND_ROW + PAD : 0;
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round((height + top + bottom) * scale);
  const g = canvas.getContext('2d')!;
  g.fillStyle = background;
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.scale(scale, scale);
  if (title) {
    g.fillStyle = '#1c2330';
    g.font = `bold 14px ${getComputedStyle(svg).fontFamily || 'sans-serif'}`;
    g.fillText(title, PAD, 17);
  }
  g.drawImage(img, 0, top, width, height);
  g.font = font;
  rows.forEach((row, r) => {
    let x = PAD;
    const y = top + height + PAD + r * LEGEND_ROW + 9;
    for (const it of row) {
      g.strokeStyle = it.color;
      g.fillStyle = it.color;
      g.lineWidth = 2;
      g.setLineDash(it.dash ? it.dash.split(/[\s,]+/).map(Number) : it.mark === 'dashed' ? [4, 3] : []);
      if (it.mark === 'line' || it.mark === 'dashed') { g.beginPath(); g.moveTo(x, y); g.lineTo(x + 16, y); g.stroke(); }
      else if (it.mark === 'cross') { g.beginPath(); g.moveTo(x + 4, y - 4); g.lineTo(x + 12, y + 4); g.moveTo(x + 12, y - 4); g.lineTo(x + 4, y + 4); g.stroke(); }
      else { g.beginPath(); g.arc(x + 8, y, it.mark === 'star' ? 5 : 4, 0, 2 * Math.PI); g.fill(); }
      g.setLineDash([]);
      g.fillStyle = '#333';
      g.fillText(it.label, x + 22, y + 4);
      x += 22 + g.measureText(it.label).width + 14;
    }
  });
  return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
}
