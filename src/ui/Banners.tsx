// The states a person must never be left guessing in: the CPU engine chosen by
// the page (no WebGPU, or only a software one: WebGPU offered), a warm start
// loading (progress), URL parameters not applied, a diverged or degenerate
// run, a lost GPU device, your task stopping a run, errors and notices.
import { LessonPanel } from './LessonPanel';
import type { Flag } from '../rl/runRecord';
import { softwareOf } from '../store/adapter';
import { NO_INDEXEDDB } from '../store/runsDb';
import { useState } from 'react';
import { flagAdvice } from './flagAdvice';
import { taskCodeOf } from '../config';
import { useApp, useAppStore } from './storeContext';

/** After choosing the CPU the banner with the button goes away: focus moves to Start (see RunButtons). */
async function useCpuThenFocusStart(store: ReturnType<typeof useAppStore>) {
  await store.getState().useCpu();
  document.getElementById('start-button')?.focus();
}

function FirstRunGuide() {
  const dismissed = useApp((s) => s.guideDismissed);
  const dismiss = useApp((s) => s.dismissGuide);
  const population = useApp((s) => s.population);
  const axis = useApp((s) => (s.config.lambdaMode === 'budget' ? 'budget B' : 'lambda_tok'));
  if (dismissed) return null;
  return (
    <section role="region" aria-label="First steps" className="banner guide" data-testid="guide">
      <ol>
        {population ? (
          <>
            <li><strong>Press Start:</strong> {population.length} runs train side by side, one per {axis} ({population.join(', ')}).</li>
            <li><strong>Watch their trails spread</strong> on the chart: more penalty, fewer tokens, less accuracy.</li>
            <li><strong>Move a member's lambda_tok</strong> while they train (until you pause): the slider moves the chosen member, the first until you click another trail or a chip under the slider, and the transcripts and the anatomy show it. Pick another preset to train one run.</li>
          </>
        ) : (
          <>
            <li><strong>Pick a preset</strong> (Setup, on the left); its paragraph says what to watch.</li>
            <li><strong>Press Start.</strong> Each eval adds a point to the accuracy-vs-tokens chart.</li>
            <li><strong>Drag lambda_tok</strong> while it trains, and watch the trail move on the chart.</li>
          </>
        )}
      </ol>
      <button type="button" onClick={dismiss}>Got it</button>
    </section>
  );
}

function Resume() {
  const r = useApp((s) => s.resumable);
  const ready = useApp((s) => s.busy === null && s.trainer?.config != null);
  const store = useAppStore();
  if (!r) return null;
  return (
    <section role="region" aria-label="Resume a run" className="banner info" data-testid="resume">
      <p>
        {r.members !== undefined ? `The ${r.name} (${r.members} ${r.members === 1 ? 'member' : 'members'}) was training when the page closed; its last saved step is ${r.step}.` : `"${r.name}" ${r.status === 'paused' ? `was paused at step ${r.step}` : 'was training when the page closed'}.`}{' '}
        <button type="button" className="primary" disabled={!ready} onClick={() => void store.getState().resume()}>Resume {r.members !== undefined ? 'it' : r.name} from step {r.step}</button>{' '}
        <button type="button" onClick={() => store.getState().dismissResume()}>Not now</button>
      </p>
    </section>
  );
}

/** The person chose WebGPU on a software adapter: the CPU engine is offered (the page would have chosen it). */
function SoftwareGpu() {
  const gpu = useApp((s) => s.gpu);
  const choice = useApp((s) => s.backendChoice);
  const store = useAppStore();
  const [hidden, setHidden] = useState(false);
  const soft = softwareOf(gpu);
  if (!soft || choice !== 'auto' || hidden) return null;
  return (
    <section role="region" aria-label="Software GPU" className="banner warn" data-testid="software-gpu">
      <p>
        WebGPU here is <strong>{soft}</strong>, a software renderer: the GPU is emulated on the CPU, and the CPU backend is often faster.{' '}
        <button type="button" className="primary" onClick={() => void useCpuThenFocusStart(store)}>Use the CPU backend</button>{' '}
        <button type="button" onClick={() => setHidden(true)}>Keep {soft}</button>
      </p>
    </section>
  );
}

/** The CPU engine the run trains on, in words. */
function engineWords(engine: 'wasm' | 'reference' | null | undefined): string {
  return engine === 'reference' ? 'the CPU reference (plain JavaScript: WebAssembly SIMD is not available here)' : 'the CPU engine (WebAssembly SIMD)';
}

/** The page chose the CPU engine itself (a software adapter, or no WebGPU): said once, small, undoable. */
function CpuChosen() {
  const gpu = useApp((s) => s.gpu);
  const choice = useApp((s) => s.backendChoice);
  const pref = useApp((s) => s.backendPref);
  const engine = useApp((s) => s.trainer?.cpuEngine);
  const useGpu = useApp((s) => s.useGpu);
  const [hidden, setHidden] = useState(false);
  const soft = softwareOf(gpu);
  if (hidden || pref === 'cpu') return null;
  // one thin line: on a first visit the task, Start, lambda_tok and the chart must stay on the first screen
  if (soft && choice === 'cpu' && pref === null) {
    return (
      <section role="region" aria-label="No hardware GPU" className="banner info notice-line" data-testid="cpu-chosen">
        <p>
          No hardware GPU found ({soft}): training on {engineWords(engine)}.{' '}
          <button type="button" className="link" onClick={() => void useGpu()}>Try WebGPU anyway</button>{' · '}
          <button type="button" className="link" onClick={() => setHidden(true)}>Dismiss</button>
        </p>
      </section>
    );
  }
  if (gpu.state !== 'none' || choice === null) return null;
  return (
    <section role="region" aria-label="No WebGPU" className="banner info notice-line" data-testid="no-webgpu">
      <p>
        This browser did not give the page WebGPU ({gpu.reason}): training on {engineWords(engine)}.{' '}
        <button type="button" className="link" onClick={() => setHidden(true)}>Dismiss</button>
      </p>
    </section>
  );
}

function Progress() {
  const busy = useApp((s) => s.busy);
  const progress = useApp((s) => s.progress);
  const message = useApp((s) => s.message);
  if (busy === null && progress === null) return null;
  return (
    <div className="banner info" role="status" data-testid="progress">
      <p>{busy ?? message}</p>
      <progress max={1} value={progress ?? undefined} aria-label="Warm start progress" />
    </div>
  );
}

function UrlProblems() {
  const problems = useApp((s) => s.urlProblems);
  const store = useAppStore();
  if (!problems.length) return null;
  return (
    <section role="alert" className="banner warn" data-testid="url-problems">
      <h2>Some link parameters were not applied</h2>
      <ul>{problems.map((p) => <li key={p}>{p}</li>)}</ul>
      <p>The rest of the link was applied.</p>
      <button type="button" onClick={() => store.getState().dismissUrlProblems()}>Dismiss</button>
    </section>
  );
}

const WHAT_TO_TRY: Record<Flag['kind'], string> = {
  'nonfinite-update': 'The update was skipped and the weights are untouched. If it repeats, lower the learning rate or the temperature.',
  diverged: 'Training paused. Try a lower learning rate (lr), a tighter gradient clip, or a lower temperature; Restore best or Reset to go back to good weights.',
  degenerate: 'The policy may have found a shortcut the reward allows. Look at the transcripts; try another preset, a smaller lambda, or Restore best.',
  collapse: 'One stretch of updates wiped out what the policy could do. Try a lower learning rate (lr) or turn gradient clipping on; Restore best goes back to good weights.',
};

function Flags() {
  const flags = useApp((s) => s.flags);
  const config = useApp((s) => s.config);
  const skipped = flags.filter((f) => f.kind === 'nonfinite-update');
  const serious = flags.filter((f) => f.kind !== 'nonfinite-update');
  // a skipped update's step is the worker's index of the step it was in (from 0); the page (and its time series mark) count from 1
  if (!flags.length) return null;
  const last = serious[serious.length - 1];
  return (
    <section role="alert" className="banner error" data-testid="flags">
      {last && (
        <>
          <h2>{last.kind === 'diverged' ? 'Training diverged' : 'The policy looks degenerate'} (step {last.step})</h2>
          <p>{last.message}</p>
          <p>{flagAdvice(last.kind, config) ?? WHAT_TO_TRY[last.kind]}</p>
        </>
      )}
      {skipped.length > 0 && (
        <p>
          {skipped.length} update{skipped.length > 1 ? 's' : ''} skipped for a non-finite loss or gradient (last at step {skipped[skipped.length - 1].step + 1}); they are marked on the
          time series. {last ? '' : WHAT_TO_TRY['nonfinite-update']}
        </p>
      )}
    </section>
  );
}

/** Your task stopped the run: which function, in which step, the task and the answer (its message); Continue waits for a changed task. */
function TaskStopped() {
  const f = useApp((s) => s.trainer?.taskFailure ?? null);
  const name = useApp((s) => (s.config.env === 'custom' ? s.preset.replace(/^task-/, '') : null));
  const code = useApp((s) => taskCodeOf(s.config));
  const editing = useApp((s) => s.taskDraft !== null);
  const store = useAppStore();
  if (!f) return null;
  return (
    <section role="alert" className="banner error" data-testid="task-stopped">
      <h2>Your task{name ? ` "${name}"` : ''} stopped the run: its {f.fn} failed in step {f.step}</h2>
      <p>{f.message}</p>
      <p>The {f.step - 1} step{f.step - 1 === 1 ? '' : 's'} before it are kept (Runs). Continue is refused until the task changes: fix {f.fn} in the task editor, Check, then Use this task.{' '}
        {!editing && code !== undefined && <button type="button" onClick={() => store.getState().setTaskDraft(code)}>Open the task editor</button>}
      </p>
    </section>
  );
}

function Recovered() {
  const r = useApp((s) => s.trainer?.recovery);
  if (!r) return null;
  return (
    <div role="status" className="banner warn" data-testid="recovery">
      The GPU device was lost at step {r.lostAtStep} ({r.reason}). The run resumed from its last checkpoint, step {r.step}
      {r.count > 1 ? ` (${r.count} times so far)` : ''}; the steps after it are taken again.
    </div>
  );
}

function Messages() {
  const error = useApp((s) => s.error);
  const notice = useApp((s) => s.notice);
  const importError = useApp((s) => s.importError);
  const storage = useApp((s) => s.storageKind);
  const storageWhy = useApp((s) => s.storageWhy);
  const store = useAppStore();
  return (
    <>
      {error && (
        <div role="alert" className="banner error" data-testid="error">
          <p>{error}</p>
          <button type="button" onClick={() => store.getState().dismissError()}>Dismiss</button>
        </div>
      )}
      {importError && (
        <div role="alert" className="banner error" data-testid="import-error">
          <p>{importError}</p>
          <p>Nothing was imported.</p>
          <button type="button" onClick={() => store.getState().dismissNotice()}>Dismiss</button>
        </div>
      )}
      {notice && (
        <div role="status" className="banner info" data-testid="notice">
          <p>{notice}</p>
          <button type="button" onClick={() => store.getState().dismissNotice()}>Dismiss</button>
        </div>
      )}
      {storage === 'memory' && <div role="status" className="banner warn" data-testid="storage-memory">Runs are kept in memory only ({storageWhy ?? NO_INDEXEDDB}): they will not survive a reload. Export them to keep them.</div>}
    </>
  );
}

export function Banners() {
  return (
    <div className="banners">
      <LessonPanel />
      <FirstRunGuide />
      <Resume />
      <CpuChosen />
      <SoftwareGpu />
      <UrlProblems />
      <Progress />
      <TaskStopped />
      <Recovered />
      <Flags />
      <Messages />
    </div>
  );
}
