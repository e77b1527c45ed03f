// A chart's frame: a region named by the chart's title, the title, a "Save
// PNG" button naming its chart (the PNG holds the title, the plot with its
// axis labels, and the legend), the chart, its legend, a caption.
import { useRef, useState, type ReactNode } from 'react';
import { fileStem } from '../store/runFile';
import { svgToPngBlob, type LegendItem } from './chartPng';
import { downloadBlob } from './download';

export type { LegendItem } from './chartPng';

function LegendKey({ it }: { it: LegendItem }) {
  if (it.dash) return <svg className="key" width="18" height="6" aria-hidden="true"><line x1="0" y1="3" x2="18" y2="3" stroke={it.color} strokeWidth="2" strokeDasharray={it.dash} /></svg>;
  if (it.mark === 'line' || it.mark === 'dashed') return <span className="key" style={{ borderTop: `2px ${it.mark === 'dashed' ? 'dashed' : 'solid'} ${it.color}` }} />;
  if (it.mark === 'cross') return <span className="key glyph" style={{ color: it.color }}>✚</span>;
  if (it.mark === 'star') return <span className="key glyph" style={{ color: it.color }}>★</span>;
  return <span className="key dot" style={{ background: it.color }} />;
}

export function Legend({ items, onHoverRun, onChooseRun, chosen = null }: {
  items: readonly LegendItem[]; onHoverRun?: (runId: string | null) => void;
  /** A click on a run's entry chooses it (a population's member); the chosen one is marked. */
  onChooseRun?: (runId: string) => void; chosen?: string | null;
}) {
  return (
    <ul className="legend">
      {items.map((it, i) => (
        <li key={`${i}-${it.label}`} {...(it.runId && onHoverRun ? { 'data-run-id': it.runId, className: `hoverable${it.runId === chosen ? ' chosen' : ''}`, onMouseEnter: () => onHoverRun(it.runId!), onMouseLeave: () => onHoverRun(null) } : {})}
          {...(it.runId && onChooseRun ? { onClick: () => onChooseRun(it.runId!), 'aria-current': it.runId === chosen ? true : undefined } : {})}>
          <LegendKey it={it} />{it.label}
        </li>
      ))}
    </ul>
  );
}

export function ChartFrame({ title, caption, legend = [], children, className = '', tools, onHoverRun, onChooseRun, chosen, control }: {
  title: string; caption?: ReactNode; legend?: readonly LegendItem[]; children: ReactNode; className?: string; tools?: ReactNode;
  /** The lesson control it belongs to (a lesson's step may hide it: LessonPanel.tsx). */
  control?: string;
  /** A legend entry naming a run was entered (its id) or left (null). */
  onHoverRun?: (runId: string | null) => void;
  onChooseRun?: (runId: string) => void; chosen?: string | null;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  const save = async () => {
    setError(null);
    // the chart's own surface: the largest SVG (legend icons are small SVGs of the same class)
    const svgs = [...(ref.current?.querySelectorAll('svg') ?? [])] as SVGSVGElement[];
    const area = (e: SVGSVGElement) => { const r = e.getBoundingClientRect(); return r.width * r.height; };
    const svg = svgs.sort((a, b) => area(b) - area(a))[0] ?? null;
    if (!svg) { setError('nothing drawn yet'); return; }
    try {
      downloadBlob(`${fileStem(title)}.png`, await svgToPngBlob(svg, title, legend));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section role="region" aria-label={title} className={`chart ${className}`} data-control={control}>
      <header>
        <h3>{title}</h3>
        <span className="tools">
          {tools}
          <button type="button" className="small" aria-label={`Save PNG: ${title}`} onClick={() => void save()}>Save PNG</button>
        </span>
      </header>
      <div ref={ref} className="plot">{children}</div>
      {legend.length > 0 && <Legend items={legend} onHoverRun={onHoverRun} onChooseRun={onChooseRun} chosen={chosen} />}
      {caption && <div className="caption">{caption}</div>}
      {error && <small role="alert" className="error">PNG: {error}</small>}
    </section>
  );
}
