/** What the one "Email or phone" sign-in field holds, decided by the form of the input. */
export type SignInIdentifier = { kind: 'email'; email: string } | { kind: 'phone'; phone: string } | { kind: 'invalid' };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A phone number typed any common way, in E.164 (`+` and digits), or null when it is not one.
 * `+7 999 123-45-67`, `8 (999) 123-45-67` and `89991234567` all give `+79991234567` (Russian numbers: `+7` and
 * 10 digits; a leading trunk `8` means `+7`). Other countries need the `+` and 8 to 15 digits.
 */
export function normalizePhone(input: string): string | null {
  const trimmed = input.trim();
  if (!/^\+?[\d\s().-]+$/.test(trimmed)) return null;
  const digits = trimmed.replace(/\D/g, '');
  if (trimmed.startsWith('+')) {
    if (digits.startsWith('7')) return digits.length === 11 ? `+${digits}` : null;
    return digits.length >= 8 && digits.length <= 15 ? `+${digits}` : null;
  }
  if (digits.length === 11 && (digits.startsWith('8') || digits.startsWith('7'))) return `+7${digits.slice(1)}`;
  if (digits.length === 10 && digits.startsWith('9')) return `+7${digits}`;
  return null;
}

export function classifyIdentifier(input: string): SignInIdentifier {
  const value = input.trim();
  if (value.includes('@')) return EMAIL.test(value) ? { kind: 'email', email: value } : { kind: 'invalid' };
  const phone = normalizePhone(value);
  return phone ? { kind: 'phone', phone } : { kind: 'invalid' };
}
