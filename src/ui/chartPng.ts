// A chart as PNG: its SVG serialized (with the computed text style inlined),
// drawn onto a canvas at 2x, saved. Everything stays in the page (blob: URLs).
export async function svgToPngBlob(svg: SVGSVGElement, background = '#ffffff', scale = 2): Promise<Blob> {
  const { width, height } = svg.getBoundingClientRect();
  if (width === 0 || height === 0) throw new Error('the chart has no size yet');
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
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const g = canvas.getContext('2d');
    if (!g) throw new Error('no 2D canvas here');
    g.fillStyle = background;
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.scale(scale, scale);
    g.drawImage(img, 0, 0, width, height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
