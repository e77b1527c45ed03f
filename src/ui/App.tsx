// The playground page. For now: whether this browser has WebGPU, which adapter
// was found, and an engine self-check run in the worker (the full page comes with the UI issue).
import { useEffect, useState } from 'react';
import { engine } from './engine';
import type { GpuProbe } from '../gpu/probe';
import type { SelfCheckResult } from '../rl/selfCheck';

type Check = { state: 'idle' } | { state: 'running' } | { state: 'done'; r: SelfCheckResult & { adapter: string } } | { state: 'error'; message: string };

export function App() {
  const [probe, setProbe] = useState<GpuProbe | null>(null);
  const [check, setCheck] = useState<Check>({ state: 'idle' });
  useEffect(() => {
    engine.probe().then(setProbe, (e: Error) => setProbe({ ok: false, reason: e.message }));
  }, []);
  const runCheck = () => {
    setCheck({ state: 'running' });
    engine.selfCheck().then((r) => setCheck({ state: 'done', r }), (e: Error) => setCheck({ state: 'error', message: e.message }));
  };
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
      <section aria-label="Engine self-check">
        <h2>Engine self-check</h2>
        <p>One training step (forward, GSPO loss, backward, AdamW) on this device, compared with the CPU reference.</p>
        <button onClick={runCheck} disabled={check.state === 'running'}>Run self-check</button>
        {check.state === 'running' && <p role="status">Running…</p>}
        {check.state === 'error' && <p role="alert">Self-check failed: {check.message}</p>}
        {check.state === 'done' && (
          <dl data-testid="self-check" data-grad-error={check.r.maxGradError} data-loss-gpu={check.r.lossBackend} data-loss-cpu={check.r.lossCpu} data-backend={check.r.backend}>
            <dt>Backend</dt><dd>{check.r.backend} ({check.r.adapter})</dd>
            <dt>Loss</dt><dd>{check.r.lossBackend.toPrecision(7)} (CPU reference {check.r.lossCpu.toPrecision(7)})</dd>
            <dt>Largest gradient difference</dt><dd>{check.r.maxGradError.toExponential(2)} of the largest gradient</dd>
            <dt>Largest weight difference after AdamW</dt><dd>{check.r.maxParamError.toExponential(2)} × lr</dd>
            <dt>Step time</dt><dd>{check.r.stepMs.toFixed(1)} ms</dd>
          </dl>
        )}
      </section>
    </main>
  );
}
