import { describe, expect, it } from 'vitest';
import { hasForwardPrefix, hasReplyPrefix, normalizeSubject } from '../../src/mail/subject.js';

describe('normalizeSubject', () => {
  it.each([
    ['Project plan', 'project plan'],
    ['Re: Project plan', 'project plan'],
    ['RE: Re: Project plan', 'project plan'],
    ['Fwd: RE: fw: Project plan', 'project plan'],
    ['FW: Project plan', 'project plan'],
    ['AW: WG: Project plan', 'project plan'],
    ['SV: VS: Project plan', 'project plan'],
    ['Antw: Project plan', 'project plan'],
    ['TR: RE : Project plan', 'project plan'],
    ['RV: Project plan', 'project plan'],
    ['Réf: Project plan', 'project plan'],
    ['RÉF: Project plan', 'project plan'],
    ['RIF: Project plan', 'project plan'],
    ['ODP: Project plan', 'project plan'],
    ['Ynt: Project plan', 'project plan'],
    ['回复: Project plan', 'project plan'],
    ['回覆：Project plan', 'project plan'],
    ['转发： 回复: Project plan', 'project plan'],
    ['Re[2]: Project plan', 'project plan'],
    ['RE [3] : Fwd(2): Project plan', 'project plan'],
    ['  Re:Re:   Project    plan  ', 'project plan'],
    ['[dev] Re: Project plan', '[dev] re: project plan'],
    ['Re: [dev] Project plan', '[dev] project plan'],
    ['Trade: Project plan', 'trade: project plan'],
    ['Regarding the plan', 'regarding the plan'],
    ['Re: ', ''],
    ['', ''],
  ])('%j -> %j', (input, expected) => {
    expect(normalizeSubject(input)).toBe(expected);
  });

  it('makes the subjects of a reply chain equal', () => {
    const subjects = ['Project plan', 'Re: Project plan', 'RE: Re: Project plan'].map(normalizeSubject);
    expect(new Set(subjects).size).toBe(1);
  });
});

describe('hasReplyPrefix / hasForwardPrefix', () => {
  it.each([
    'Re: x',
    'RE: x',
    're:x',
    'AW: x',
    'SV: x',
    'Antw: x',
    'Re[2]: x',
    '回复: x',
    '回复：x',
    'Ynt: x',
  ])('%j has a reply prefix', (subject) => {
    expect(hasReplyPrefix(subject)).toBe(true);
    expect(hasForwardPrefix(subject)).toBe(false);
  });

  it.each(['Fwd: x', 'FWD: x', 'Fw: x', 'FW: x', 'WG: x', 'TR: x', 'RV: x', '转发: x', '转发：x'])(
    '%j has a forward prefix',
    (subject) => {
      expect(hasForwardPrefix(subject)).toBe(true);
      expect(hasReplyPrefix(subject)).toBe(false);
    },
  );

  it('looks only at the first prefix', () => {
    expect(hasReplyPrefix('Fwd: Re: x')).toBe(false);
    expect(hasForwardPrefix('Re: Fwd: x')).toBe(false);
  });

  it.each(['x', 'Regarding x', 'Forward planning', '[list] Re: x', ''])('%j has neither', (subject) => {
    expect(hasReplyPrefix(subject)).toBe(false);
    expect(hasForwardPrefix(subject)).toBe(false);
  });
});
