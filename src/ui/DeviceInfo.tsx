// This device: the WebGPU adapter the trainer found (or why not), the backend
// the run trains on, and an engine self-check (one training step compared with
// the CPU reference) on demand.
import { useState } from 'react';
import type { SelfCheckResult } from '../rl/selfCheck';
import { engineClient } from '../store/engineClient';
import { useApp } from './storeContext';

type Check = { state: 'idle' } | { state: 'running' } | { state: 'done'; r: SelfCheckResult & { adapter: string } } | { state: 'error'; message: string };

export function DeviceInfo() {
  const gpu = useApp((s) => s.gpu);
  const backend = useApp((s) => s.trainer?.backend ?? null);
  const choice = useApp((s) => s.backendChoice);
  const useGpu = useApp((s) => s.useGpu);
  const [check, setCheck] = useState<Check>({ state: 'idle' });
  const runCheck = () => {
    setCheck({ state: 'running' });
    engineClient().selfCheck().then((r) => setCheck({ state: 'done', r }), (e: Error) => setCheck({ state: 'error', message: e.message }));
  };
  return (
    <details className="device">
      <summary>This device: {backend === 'webgpu' ? 'WebGPU' : backend === 'cpu' ? 'CPU backend' : gpu.state === 'probing' ? 'looking for WebGPU…' : 'no run yet'}</summary>
      {gpu.state === 'probing' && <p role="status">Looking for a WebGPU adapter…</p>}
      {gpu.state === 'ok' && <p role="status" data-testid="webgpu-status">WebGPU is available. Adapter: <strong>{gpu.adapter}</strong></p>}
      {gpu.state === 'none' && <p role="status" data-testid="webgpu-status">WebGPU is not available here: {gpu.reason}.</p>}
      <p>The run trains on: {backend ?? '–'}.</p>
      {choice === 'cpu' && gpu.state === 'ok' && (
        <p><button type="button" onClick={() => void useGpu()}>Use WebGPU again</button> <small className="muted">(the CPU was chosen; this page remembers it)</small></p>
      )}
      <p>Engine self-check: one training step (forward, GSPO loss, backward, AdamW) on this device, compared with the CPU reference.</p>
      <button type="button" onClick={runCheck} disabled={check.state === 'running'}>Run self-check</button>
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
    </details>
  );
}
