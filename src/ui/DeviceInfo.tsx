// This device: the WebGPU adapter the trainer found (or why not), the backend
// the run trains on, the current run's speed (steps/s, GFLOP/s), and an engine
// self-check (one training step compared with the CPU reference) on demand.
import { useState } from 'react';
import type { SelfCheckResult } from '../rl/selfCheck';
import { softwareOf } from '../store/adapter';
import { engineClient } from '../store/engineClient';
import type { GpuState } from '../store/types';
import { runSpeed } from './runSpeed';
import { useApp, useHub, useHubFrame } from './storeContext';

type Check = { state: 'idle' } | { state: 'running' } | { state: 'done'; r: SelfCheckResult & { adapter: string; note: string | null } } | { state: 'error'; message: string };

/** The header's line, in the banner's words: WebGPU on a software adapter is said to be one (the GPU is emulated on the CPU). */
export function deviceLine(backend: 'cpu' | 'webgpu' | null, gpu: GpuState, cpuEngine: 'wasm' | 'reference' | null = null): string {
  if (backend === 'webgpu') {
    const soft = softwareOf(gpu);
    return soft ? `WebGPU on ${soft}, a software adapter (the GPU emulated on the CPU)` : 'WebGPU';
  }
  if (backend === 'cpu') return cpuEngine === 'wasm' ? 'CPU backend, WebAssembly SIMD' : cpuEngine === 'reference' ? 'CPU backend, plain JavaScript reference' : 'CPU backend';
  return gpu.state === 'probing' ? 'looking for WebGPU…' : 'no run yet';
}

export function DeviceInfo() {
  const gpu = useApp((s) => s.gpu);
  const backend = useApp((s) => s.trainer?.backend ?? null);
  const cpuEngine = useApp((s) => s.trainer?.cpuEngine ?? null);
  const threads = useApp((s) => s.trainer?.cpuThreads?.count ?? null);
  const workerChunks = useApp((s) => s.trainer?.cpuThreads?.workerChunks ?? null);
  const variant = useApp((s) => s.trainer?.cpuThreads?.variant ?? null);
  const pref = useApp((s) => s.backendPref);
  const backendNote = useApp((s) => s.trainer?.backendNote ?? null);
  const choice = useApp((s) => s.backendChoice);
  const measured = useApp((s) => s.engineChoice);
  const useGpu = useApp((s) => s.useGpu);
  const runId = useApp((s) => s.runId);
  const hub = useHub();
  useHubFrame();
  const speed = runSpeed(runId ? hub.get(runId) : undefined);
  const [check, setCheck] = useState<Check>({ state: 'idle' });
  const runCheck = () => {
    setCheck({ state: 'running' });
    engineClient().selfCheck(choice === 'cpu' ? 'cpu' : 'auto').then((r) => setCheck({ state: 'done', r }), (e: Error) => setCheck({ state: 'error', message: e.message }));
  };
  return (
    <details className="device">
      <summary>This device: {deviceLine(backend, gpu, cpuEngine)}</summary>
      {gpu.state === 'probing' && <p role="status">Looking for a WebGPU adapter…</p>}
      {gpu.state === 'ok' && <p role="status" data-testid="webgpu-status">WebGPU is available. Adapter: <strong>{gpu.adapter}</strong></p>}
      {gpu.state === 'none' && <p role="status" data-testid="webgpu-status">WebGPU is not available here: {gpu.reason}.</p>}
      {gpu.state === 'none' && (
        <p data-testid="webgpu-where">
          WebGPU is on by default in Chrome and Edge 113 or newer (Windows, macOS, ChromeOS; Android 121+), in Safari 26 or newer
          (and Safari Technology Preview), and in Firefox 141 or newer on Windows. Elsewhere it may be behind a flag, or the GPU may be
          blocklisted by the browser.
        </p>
      )}
      <p data-testid="trains-on" data-engine={cpuEngine ?? backend ?? ''} data-threads={threads ?? ''} data-worker-chunks={workerChunks ?? ''} data-variant={variant ?? ''}>
        The run trains on: {backend ?? '–'}{cpuEngine ? ` (${cpuEngine === 'wasm' ? `WebAssembly SIMD${threads !== null && threads > 1 ? `, ${threads} threads` : ''}` : 'the reference'})` : ''}.
      </p>
      {backendNote && <p role="alert" data-testid="backend-note">{backendNote}</p>}
      {measured && <p data-testid="engine-choice" data-chosen={measured.chosen}>Timed at this run's shapes, one warm step each: {measured.line}.</p>}
      {speed && (
        <p data-testid="run-speed" data-steps-per-s={speed.stepsPerSec} data-gflops={String(speed.gflops)}>
          This run: <strong>{speed.stepsPerSec.toFixed(2)} steps/s</strong>
          {Number.isFinite(speed.gflops) && <>, <strong>{speed.gflops.toFixed(2)} GFLOP/s</strong></>} over its last {speed.steps} step{speed.steps === 1 ? '' : 's'}.{' '}
          <small className="muted">GFLOP/s counts the matrix multiplies of a step (2 per multiply-add): generating the episodes, counted as
            with a KV cache (each token fed once), and the forward and backward of the minibatches; layernorm, softmax, AdamW and evaluations are not counted.</small>
        </p>
      )}
      {choice === 'cpu' && gpu.state === 'ok' && (
        <p><button type="button" onClick={() => void useGpu()}>Use WebGPU again</button> <small className="muted">{pref === 'cpu' ? '(the CPU was chosen; this page remembers it)' : measured && measured.chosen !== 'webgpu' ? '(the CPU engine took a step faster here; this choice is kept)' : '(the page chose the CPU engine: this adapter is a software renderer)'}</small></p>
      )}
      <p>Engine self-check: one training step (forward, GSPO loss, backward, AdamW) on this device, compared with the CPU reference.</p>
      <button type="button" onClick={runCheck} disabled={check.state === 'running'}>Run self-check</button>
      {check.state === 'running' && <p role="status">Running…</p>}
      {check.state === 'error' && <p role="alert">Self-check failed: {check.message}</p>}
      {check.state === 'done' && check.r.note && <p role="alert">{check.r.note}</p>}
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
