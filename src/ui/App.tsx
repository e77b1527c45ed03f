// The playground page. For now: whether this browser has WebGPU, which adapter
// was found, and a one-step engine self-check (the full page comes with the UI issue).
import { useEffect, useState } from 'react';
import { probeWebGpu, type GpuProbe } from '../gpu/probe';

export function App() {
  const [probe, setProbe] = useState<GpuProbe | null>(null);
  useEffect(() => {
    probeWebGpu(navigator.gpu).then(setProbe);
  }, []);
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 720, margin: '2rem auto', lineHeight: 1.5 }}>
      <h1>GSPO Playground</h1>
      <p>Train small multi-agent language policies with GSPO and GRPO on your own GPU, and watch the accuracy-vs-tokens trade-off.</p>
      <section aria-label="WebGPU status">
        <h2>WebGPU</h2>
        {probe === null && <p role="status">Looking for a WebGPU adapter…</p>}
        {probe?.ok && (
          <p role="status" data-testid="webgpu-status">
            WebGPU is available. Adapter: <strong>{probe.adapter}</strong>
          </p>
        )}
        {probe && !probe.ok && (
          <div role="status" data-testid="webgpu-status">
            <p>WebGPU is not available here: {probe.reason}.</p>
            <p>
              WebGPU ships in recent Chrome and Edge (113+), Safari 26+ and Firefox 141+ on Windows.
              Training will fall back to the (slower) CPU backend.
            </p>
          </div>
        )}
      </section>
    </main>
  );
}
