// A chart's frame: a region named by the chart's title, the title, a
// "Save PNG" button (the SVG drawn onto a canvas), the chart, a caption.
import { useRef, useState, type ReactNode } from 'react';
import { fileStem } from '../store/runFile';
import { svgToPngBlob } from './chartPng';
import { downloadBlob } from './download';

export function ChartFrame({ title, caption, children, className = '' }: { title: string; caption?: ReactNode; children: ReactNode; className?: string }) {
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
      downloadBlob(`${fileStem(title)}.png`, await svgToPngBlob(svg));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section role="region" aria-label={title} className={`chart ${className}`}>
      <header>
        <h3>{title}</h3>
        <button type="button" className="small" onClick={() => void save()}>Save PNG</button>
      </header>
      <div ref={ref} className="plot">{children}</div>
      {caption && <div className="caption">{caption}</div>}
      {error && <small role="alert" className="error">PNG: {error}</small>}
    </section>
  );
}
