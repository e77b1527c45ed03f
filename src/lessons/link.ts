// A lesson in a link: its JSON deflated (fflate) and written base64url, as a task's code travels
// (src/store/taskLink.ts). Reading one is checked like a lesson file: every problem named, and
// `carriesCode` says whether a step's setting carries a task's code, so the page asks before running it.
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate';
import { checkLessonText, LESSON_MAX_CHARS, type Lesson, type LessonCheck, type SettingDecoder } from './format';

/** The longest encoded lesson read: a link's query is at most 8,192 characters (src/store/urlState.ts). */
export const LESSON_LINK_MAX = 8192;

/** The lesson as one link parameter's value (base64url of its deflated JSON). */
export function encodeLesson(lesson: Lesson): string {
  const bytes = deflateSync(strToU8(JSON.stringify(lesson)), { level: 9 });
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A link parameter's value read back as a lesson, with its problems (one, when it is not an encoded lesson at all). Never throws. */
export function decodeLesson(text: string, decode: SettingDecoder): LessonCheck {
  const fail = (why: string): LessonCheck => ({ lesson: null, problems: [why], carriesCode: false });
  if (text.length > LESSON_LINK_MAX) return fail(`the lesson in the link is ${text.length} characters, more than ${LESSON_LINK_MAX}`);
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return fail('the link does not hold a lesson (base64url characters only)');
  let json: string;
  try {
    const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    json = strFromU8(inflateSync(bytes));
  } catch (e) {
    return fail(`the lesson in the link could not be read (${e instanceof Error ? e.message : String(e)})`);
  }
  if (json.length > LESSON_MAX_CHARS) return fail(`the lesson in the link is ${json.length} characters of JSON, more than ${LESSON_MAX_CHARS}`);
  return checkLessonText(json, decode);
}
