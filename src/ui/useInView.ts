// Whether an element is on screen (IntersectionObserver; true where there is none). False until the observer's first
// answer: a chart below the fold is not drawn at load, and charts off screen keep their last drawing instead of
// redrawing at every telemetry frame.
import { useEffect, useState, type RefObject } from 'react';

export function useInView(ref: RefObject<Element | null>, margin = '200px'): boolean {
  const [inView, setInView] = useState(() => typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => setInView(entries.some((e) => e.isIntersecting)), { rootMargin: margin });
    io.observe(el);
    return () => io.disconnect();
  }, [ref, margin]);
  return inView;
}
