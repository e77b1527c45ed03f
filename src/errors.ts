/** Bad input from a person (a flag, a file, a URL parameter): shown as one line, never a stack trace. */
export class InputError extends Error {
  override name = 'InputError';
}
