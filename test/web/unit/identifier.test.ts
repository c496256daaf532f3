import { classifyIdentifier, normalizePhone } from '../../../web/src/lib/identifier';

describe('the one sign-in field', () => {
  test.each([
    ['+7 999 123-45-67', '+79991234567'],
    ['+7 (999) 123 45 67', '+79991234567'],
    ['8 999 123-45-67', '+79991234567'],
    ['89991234567', '+79991234567'],
    ['9991234567', '+79991234567'],
    ['+44 20 7946 0958', '+442079460958'],
  ])('%s is the phone %s', (typed, e164) => {
    expect(normalizePhone(typed)).toBe(e164);
    expect(classifyIdentifier(typed)).toEqual({ kind: 'phone', phone: e164 });
  });

  test.each(['+7 999 123-45-6', '+7 999 123-45-678', '12345', '+1 23', 'ann', '999-abc'])('%s is not a phone', (typed) => {
    expect(normalizePhone(typed)).toBeNull();
    expect(classifyIdentifier(typed).kind).toBe('invalid');
  });

  test('an address with @ is an email, trimmed; a broken one is refused', () => {
    expect(classifyIdentifier('  ann@example.com ')).toEqual({ kind: 'email', email: 'ann@example.com' });
    expect(classifyIdentifier('ann@example')).toEqual({ kind: 'invalid' });
    expect(classifyIdentifier('@example.com')).toEqual({ kind: 'invalid' });
  });
});
