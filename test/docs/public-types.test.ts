import { describe, expectTypeOf, it } from 'vitest';
import type { Email } from '../../src/client/types.js';
import type { Config } from '../../src/config.js';
import type { MailroomSettings } from '../../src/embed/public.js';
import type { EmailView } from '../../src/mailbox/reading/email-view.js';

// Checked by the type check (npm test runs tsc --noEmit first): a mismatch is a compile error here.
describe('the public types written out in src/embed/public.ts', () => {
  it('name every setting the server reads, each with a type it accepts', () => {
    expectTypeOf<Exclude<keyof Config, keyof MailroomSettings>>().toEqualTypeOf<never>();
    expectTypeOf<Exclude<keyof MailroomSettings, keyof Config>>().toEqualTypeOf<never>();
    type Mismatched = {
      [K in keyof Config]-?: NonNullable<MailroomSettings[K]> extends NonNullable<Config[K]> ? never : K;
    }[keyof Config];
    expectTypeOf<Mismatched>().toEqualTypeOf<never>();
  });

  it('type an email read whole, as the helpers answer it, as the generated Email', () => {
    expectTypeOf<EmailView & { extractedText: string }>().toExtend<Email>();
  });
});
