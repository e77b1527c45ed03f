// The link's decoder reports every parameter it does not
// apply, including a name written with no "=" (presetrelay-noisy) and one with a space inside
// (gr oupSize), saying which and the likely intent.
import { describe, expect, it } from 'vitest';
import { decodeSetup } from '../../src/store/urlState';

describe('every parameter not applied is reported', () => {
  it.each([
    ['v=1&presetrelay-noisy', ['parameter "presetrelay-noisy" has no "=" (a link\'s parameters are name=value); did you mean preset=relay-noisy?; not applied']],
    ['v=1&gr%20oupSize=4', ['parameter "gr oupSize" has a space inside its name; did you mean groupSize?; not applied']],
    ['v=1&gr+oupSize=4', ['parameter "gr oupSize" has a space inside its name; did you mean groupSize?; not applied']],
    ['v=1&lr', ['lr has no "=" and no value (a link\'s parameters are name=value); not applied']],
    ['v=1&lr0.01', ['parameter "lr0.01" has no "=" (a link\'s parameters are name=value); did you mean lr=0.01?; not applied']],
    ['v=1&x%20y=1', ['parameter "x y" has a space inside its name; not applied']],
  ])('%s', (q, problems) => {
    const d = decodeSetup(q);
    expect(d.overrides).toEqual({});
    expect(d.problems).toEqual(problems);
  });

  it('a name given with "=" first and bare later is applied (the first is read), the repeat reported', () => {
    const d = decodeSetup('v=1&lr=0.01&lr');
    expect(d.overrides).toEqual({ lr: 0.01 });
    expect(d.problems).toEqual(['lr is given 2 times; the first (0.01) is used']);
  });

  it('the rest still apply', () => {
    const d = decodeSetup('v=1&preset=relay-noisy&presetrelay-silence&groupSize=8');
    expect(d.preset).toBe('relay-noisy');
    expect(d.overrides).toEqual({ groupSize: 8 });
    expect(d.problems).toHaveLength(1);
  });
});
