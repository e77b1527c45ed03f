// The lesson format's checker on hand-written lessons: a good one passes, and each kind of bad one
// names its problem (unknown field, control, action, check; a setting that does not decode; a code link).
import { describe, expect, it } from 'vitest';
import { checkLesson, checkLessonText, CONTROLS, decodeLesson, encodeLesson, LESSON_FORMAT, LESSON_LINK_MAX, SHIPPED_LESSONS } from '../../src/lessons';
import { decodeSetup } from '../../src/store/urlState';
import { encodeTask } from '../../src/store/taskLink';

const good = () => ({
  lesson: LESSON_FORMAT, name: 'my-lesson', title: 'A title', about: 'What it teaches.', minutes: 1,
  steps: [
    {
      title: 'One step', setting: '?v=1&preset=relay-noisy-quick&lambdaTok=0&recipe=off', controls: ['step', 'anatomy'],
      do: 'Press Step.', predict: 'How many flat groups?', action: { do: 'step', times: 1 },
      check: { zeroStdGroups: '>=1' }, explain: 'A flat group has no signal.',
    },
    {
      title: 'Look closer', controls: ['anatomy'], do: 'Open the anatomy.', action: { do: 'openAnatomy' },
      check: { stepMetric: 'frac_zero_std', op: '>', value: 0 }, explain: 'Same run.',
    },
  ],
});
type Any = Record<string, any>;
const bad = (edit: (l: Any) => void) => { const l: Any = good(); edit(l); return checkLesson(l, decodeSetup).problems; };

describe('checkLesson', () => {
  it('accepts a good lesson, and every shipped one', () => {
    const r = checkLesson(good(), decodeSetup);
    expect(r.problems).toEqual([]);
    expect(r.lesson?.name).toBe('my-lesson');
    expect(r.carriesCode).toBe(false);
    for (const l of SHIPPED_LESSONS) expect(checkLesson(l, decodeSetup).problems, l.name).toEqual([]);
    expect(new Set(SHIPPED_LESSONS.map((l) => l.name)).size).toBe(SHIPPED_LESSONS.length);
  });
  it('names an unknown field, at the top and in a step', () => {
    expect(bad((l) => { l.autor = 'me'; })).toEqual(['unknown field "autor" (a lesson has lesson, name, title, about, minutes, steps)']);
    expect(bad((l) => { l.steps[0].hint = 'x'; })).toEqual(['step 1: unknown field "hint" (a step has title, setting, controls, do, predict, action, check, explain)']);
  });
  it('names an unknown control', () => {
    expect(bad((l) => { l.steps[1].controls = ['anatomy', 'lambda']; })).toEqual([`step 2 controls: unknown control "lambda" (controls: ${CONTROLS.join(', ')})`]);
  });
  it('names an unknown action and an action\'s bad field', () => {
    expect(bad((l) => { l.steps[0].action = { do: 'jump' }; })[0]).toMatch(/^step 1 action: unknown action "jump" \(write \{"do": NAME\}; actions: start, step, moveLambda/);
    expect(bad((l) => { l.steps[0].action = { do: 'moveLambda' }; })).toEqual(['step 1 action: moveLambda needs to, a lambda_tok in [0, 10], got undefined']);
    expect(bad((l) => { l.steps[0].action = { do: 'step', count: 2 }; })).toEqual(['step 1 action: unknown field "count" for step (it takes times)']);
  });
  it('names an unknown check and a check\'s bad field', () => {
    expect(bad((l) => { l.steps[0].check = { silence: 1 }; })[0]).toMatch(/^step 1 check: unknown check \(keys "silence"\); a check has one of metric, stepMetric/);
    expect(bad((l) => { l.steps[0].check = { metric: 'accuracy', op: '>=', value: 1, within: -3 }; })).toEqual(['step 1 check (metric): within must be a step number (an integer >= 0), got -3']);
  });
  it('names a setting that does not decode, with decodeSetup\'s words', () => {
    expect(bad((l) => { l.steps[0].setting = '?v=1&preset=relay-nosy'; })[0]).toMatch(/^step 1 setting: preset "relay-nosy" is not one of relay-silence, /);
    expect(bad((l) => { l.steps[0].setting = '?v=1&preset=relay-silence&lr=fast'; })[0]).toMatch(/^step 1 setting: .*lr.*; not applied$/);
    expect(bad((l) => { l.steps[0].setting = 'preset=relay-silence'; })).toEqual(['step 1 setting: must be a link\'s query starting with "?", such as "?v=1&preset=relay-silence", got "preset=relay-silence"']);
  });
  it('says where a setting is missing or not allowed', () => {
    expect(bad((l) => { delete l.steps[0].setting; })).toEqual(['step 1: setting is missing (the first step starts the lesson\'s run from one)']);
    expect(bad((l) => { l.steps[1].action = { do: 'start' }; })).toEqual(['step 2: action start trains, so the step needs a setting (a link\'s query such as "?v=1&preset=relay-silence")']);
    expect(bad((l) => { l.steps[1].setting = '?v=1&preset=relay-silence'; })).toEqual(['step 2: action openAnatomy acts on the previous step\'s run, so the step has no setting (remove it, or use start)']);
  });
  it('names missing and malformed texts, the version and the name', () => {
    expect(bad((l) => { delete l.steps[0].explain; })).toEqual(['step 1: explain is missing']);
    expect(bad((l) => { l.lesson = 'gspo-lesson/2'; l.name = 'My Lesson'; })).toEqual([
      `lesson must be "${LESSON_FORMAT}" (the format's version), got "gspo-lesson/2"`,
      'name must be lower-case letters, digits and dashes (at most 48), got "My Lesson"',
    ]);
    expect(bad((l) => { l.steps = []; })).toEqual(['steps must be a list of 1 to 12 steps, got an array of 0']);
    expect(checkLesson([1], decodeSetup).problems).toEqual(['a lesson must be a JSON object with fields lesson, name, title, about, steps']);
  });
  it('reads hostile text without throwing, one line per problem', () => {
    expect(checkLessonText('{"lesson": ', decodeSetup).problems[0]).toMatch(/^not JSON: /);
    expect(checkLessonText('x'.repeat(70_000), decodeSetup).problems).toEqual(['the lesson is 70000 characters, more than 65536']);
    const proto = checkLessonText(JSON.stringify(good()).replace('"title":"A title"', '"title":"A title","__proto__":{"polluted":1}'), decodeSetup);
    expect(proto.problems).toEqual(['unknown field "__proto__" (a lesson has lesson, name, title, about, minutes, steps)']);
    expect(({} as Any).polluted).toBeUndefined();
  });
  it('exposes a setting that carries a task\'s code, so the page can ask before running it', () => {
    const code = 'export default { vocab: "ab", sample: () => "a", solver: (t) => t, score: () => 1 };';
    const r = checkLesson({ ...good(), steps: [{ ...good().steps[0], setting: `?v=1&preset=task-x&task=${encodeTask(code)}` }] }, decodeSetup);
    expect(r.carriesCode).toBe(true);
    expect(r.problems).toEqual([]);
  });
});

describe('a lesson in a link', () => {
  it('round-trips through encodeLesson / decodeLesson, and says when it carries code', () => {
    for (const l of SHIPPED_LESSONS) {
      const text = encodeLesson(l);
      expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(text.length).toBeLessThan(LESSON_LINK_MAX);
      const back = decodeLesson(text, decodeSetup);
      expect(back.problems).toEqual([]);
      expect(back.lesson).toEqual(l);
    }
    const code = 'export default { vocab: "ab", sample: () => "a", solver: (t) => t, score: () => 1 };';
    const withCode = { ...good(), steps: [{ ...good().steps[0], setting: `?v=1&preset=task-x&task=${encodeTask(code)}` }] };
    expect(decodeLesson(encodeLesson(withCode as never), decodeSetup).carriesCode).toBe(true);
  });
  it('names what is wrong with a broken one, and checks the lesson inside', () => {
    expect(decodeLesson('not a lesson!', decodeSetup).problems).toEqual(['the link does not hold a lesson (base64url characters only)']);
    expect(decodeLesson('AAAA', decodeSetup).problems[0]).toMatch(/^the lesson in the link could not be read \(/);
    expect(decodeLesson('A'.repeat(9000), decodeSetup).problems).toEqual(['the lesson in the link is 9000 characters, more than 8192']);
    const bad = { ...good(), steps: [{ ...good().steps[0], controls: ['lambda'] }] };
    expect(decodeLesson(encodeLesson(bad as never), decodeSetup).problems[0]).toMatch(/^step 1 controls: unknown control "lambda"/);
  });
});

describe('member indices', () => {
  it('a chosen or checked member must be one of the run\'s', () => {
    const pop = (extra: Any) => ({ ...good(), steps: [
      { ...good().steps[0], setting: '?v=1&preset=relay-noisy-quick&population=0,0.3&recipe=off', action: { do: 'start' } },
      { title: 'Pick', controls: ['memberChips'], do: 'Pick one.', explain: 'x', action: { do: 'chooseMember', member: 1 }, check: { metric: 'tokens', op: '<=', value: 3, member: 'chosen' }, ...extra },
    ] });
    expect(checkLesson(pop({}), decodeSetup).problems).toEqual([]);
    expect(checkLesson(pop({ action: { do: 'chooseMember', member: 2 } }), decodeSetup).problems).toEqual(['step 2 action: chooseMember member 2, but the run has 2 members (indices from 0)']);
    expect(checkLesson(pop({ check: { metric: 'tokens', op: '<=', value: 3, member: 4 } }), decodeSetup).problems).toEqual(['step 2 check: member 4, but the run has 2 members (indices from 0)']);
  });
});
