// A task's code in the shareable link: deflated (fflate) and written base64url, so a task of a few
// kilobytes fits the link's 8,192 characters. Decoding is checked like any input: a broken one is
// named, never run; and code from a link runs only after the person confirms it (sessionSlice boot).
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate';
import { InputError } from '../contract/errors';
import { TASK_CODE_MAX } from '../config';

export function encodeTask(code: string): string {
  const bytes = deflateSync(strToU8(code), { level: 9 });
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function decodeTask(text: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new InputError('task= is not a task\'s code (base64url characters only)');
  let code: string;
  try {
    const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    code = strFromU8(inflateSync(bytes));
  } catch (e) {
    throw new InputError(`task= could not be read as a task's code (${(e as Error).message})`);
  }
  if (code.length > TASK_CODE_MAX) throw new InputError(`task= holds ${code.length} characters, more than the ${TASK_CODE_MAX} a task may have`);
  return code;
}
