// A lesson's step on the page (docs/lessons.md): where the learner is ("Step 2 of 5"), what to do and to predict,
// the check on their own run (evaluated every 2 s until it passes, and on "Check my run"), the explanation when it
// passes or when asked, "Run this step's setting again" when it does not, and Back / Next. While a step is open the
// controls it does not name are hidden (LessonControlsStyle): elements carry data-control="<name>".
import { useEffect, useRef } from 'react';
import { CONTROLS, type ControlName } from '../lessons';
import { useApp, useAppStore } from './storeContext';

const CHECK_EVERY_MS = 2000;

/** The page's controls a lesson's open step hides (none when no lesson is open). */
export function useHiddenControls(): ReadonlySet<ControlName> {
  const shown = useApp((s) => (s.lesson ? s.lesson.lesson.steps[s.lesson.index].controls.join(' ') : null));
  if (shown === null) return NO_CONTROLS;
  const keep = new Set(shown.split(' '));
  return new Set(CONTROLS.filter((c) => !keep.has(c)));
}
const NO_CONTROLS: ReadonlySet<ControlName> = new Set();

/** One style rule hiding every element of a hidden control (hidden from screen readers too: display none). */
export function LessonControlsStyle() {
  const hidden = [...useHiddenControls()];
  if (hidden.length === 0) return null;
  return <style data-testid="lesson-hides" data-hidden={hidden.join(' ')}>{`${hidden.map((c) => `[data-control="${c}"]`).join(', ')} { display: none !important; }`}</style>;
}

export function LessonPanel() {
  const progress = useApp((s) => s.lesson);
  const busy = useApp((s) => s.busy);
  const store = useAppStore();
  const a = store.getState();
  const index = progress?.index ?? -1;
  const passed = progress?.results[index]?.pass === true;
  // the check follows the learner's run until it passes (cheap: a pure function over the run's evals and metrics)
  useEffect(() => {
    if (index < 0 || passed) return;
    const t = setInterval(() => { if (store.getState().busy === null) store.getState().lessonCheck(); }, CHECK_EVERY_MS);
    return () => clearInterval(t);
  }, [index, passed, store]);
  // a comparison of players (AgentPO) is made when the step's run has finished, as the CLI makes it: the check reads it
  const wantsComparison = useApp((s) => {
    const l = s.lesson, r = l?.results[l.index];
    return !!l && 'compare' in l.lesson.steps[l.index].check && r?.final === true && !s.trainer?.comparison && s.busy === null;
  });
  const runId = useApp((s) => s.runId);
  const asked = useRef('');
  useEffect(() => {
    const key = `${index}:${runId}`; // once per step and run (a rerun is a new run)
    if (!wantsComparison || asked.current === key) return;
    asked.current = key;
    void store.getState().compare().then(() => store.getState().lessonCheck());
  }, [wantsComparison, index, runId, store]);
  if (!progress) return null;
  const { lesson, results, explained } = progress;
  const step = lesson.steps[index], r = results[index], n = lesson.steps.length;
  return (
    <section role="region" aria-label="Lesson" className="banner lesson" data-testid="lesson" data-step={index + 1} data-pass={r ? String(r.pass) : ''}>
      <p className="lesson-head">
        <strong>{lesson.title}</strong> · <span data-testid="lesson-progress">Step {index + 1} of {n}</span>: {step.title}{' '}
        <button type="button" className="link small" onClick={() => a.closeLesson()}>Close the lesson</button>
      </p>
      <p><strong>Do:</strong> {step.do}</p>
      {step.predict && <p><strong>Predict:</strong> {step.predict}</p>}
      <p role="status" data-testid="lesson-result" className={r?.pass ? 'lesson-pass' : undefined}>
        {r === undefined ? 'Your run is checked as it trains.' : r.pass ? `Passed: ${r.got}.` : r.final ? `Not what the step expected: ${r.expected}; your run: ${r.got}.` : `Not done yet (checked when the step's run has finished): expected ${r.expected}; so far: ${r.got}.`}
      </p>
      {(r?.pass || explained) && <p className="explain" data-testid="lesson-explain">{step.explain}</p>}
      <div className="buttons">
        <button type="button" disabled={index === 0 || busy !== null} onClick={() => void a.lessonGo(index - 1)}>Back</button>
        <button type="button" disabled={busy !== null} onClick={() => a.lessonCheck()}>Check my run</button>
        {r !== undefined && r.final && !r.pass && <button type="button" disabled={busy !== null} onClick={() => void a.lessonRerun()}>Run this step's setting again</button>}
        {!r?.pass && !explained && <button type="button" onClick={() => a.lessonExplain(true)}>Explain</button>}
        <button type="button" className={r?.pass ? 'primary' : undefined} disabled={index === n - 1 || busy !== null} onClick={() => void a.lessonGo(index + 1)}>Next</button>
      </div>
    </section>
  );
}
