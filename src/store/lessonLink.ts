// A lesson's link (`?lesson=NAME`, or `?lesson=~ENCODED` for a lesson of a teacher's own, with `&step=N`): reading
// one, and writing the link of a lesson at a step. Used by the lesson slice and by the context's URL sync.
import { decodeLesson, encodeLesson, findLesson, SHIPPED_LESSONS, type Lesson } from '../lessons';
import { clip } from '../contract/errors';
import { decodeSetup } from './urlState';

/** The `lesson` parameter's lesson: a shipped one by name, or one encoded in the link ("~..."); a problem is thrown as text. */
export function lessonOfParam(param: string): Lesson {
  if (param.startsWith('~')) {
    const c = decodeLesson(param.slice(1), decodeSetup);
    if (!c.lesson) throw new Error(`the lesson in this link is not valid: ${c.problems.slice(0, 3).join('; ')}`);
    if (c.carriesCode) throw new Error('the lesson in this link carries a task\'s code: open the task\'s own link first (it asks before it runs), then the lesson');
    return c.lesson;
  }
  try { return findLesson(param); } catch { throw new Error(`no lesson named ${clip(JSON.stringify(param), 60)}; the lessons are ${SHIPPED_LESSONS.map((l) => l.name).join(', ')}`); }
}

/** The link of a lesson at a step: its name (shipped) or its encoding (a teacher's own). */
export function lessonQuery(lesson: Lesson, step: number): string {
  const shipped = SHIPPED_LESSONS.some((l) => l.name === lesson.name && JSON.stringify(l) === JSON.stringify(lesson));
  const q = new URLSearchParams({ lesson: shipped ? lesson.name : `~${encodeLesson(lesson)}` });
  if (step > 0) q.set('step', String(step + 1));
  return q.toString();
}

/** The step a setting-less step acts on: the nearest step at or before it with a setting. */
export const settingStep = (lesson: Lesson, index: number): number => {
  for (let i = index; i >= 0; i--) if (lesson.steps[i].setting !== undefined) return i;
  return 0;
};

