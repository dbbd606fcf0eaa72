import { describe, expect, it } from 'vitest';
import { displayForm, generateKey, hashKey, isWellFormedKey } from '#shared/keys/key-format';

describe('key format', () => {
  it('makes sk-svc- keys of 43 base64url characters, all different', () => {
    const keys = Array.from({ length: 50 }, generateKey);
    for (const key of keys) expect(key).toMatch(/^sk-svc-[A-Za-z0-9_-]{43}$/);
    expect(new Set(keys).size).toBe(50);
    expect(keys.every(isWellFormedKey)).toBe(true);
    expect(isWellFormedKey('sk-svc-short')).toBe(false);
  });

  it('hashes with SHA-256 to hex', async () => {
    expect(await hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('displays four characters either side and never more', () => {
    const key = 'sk-svc-abcdEFGHijklMNOPqrstUVWXyz0123456789-_wxyz';
    expect(displayForm(key)).toBe('sk-svc-abcd…wxyz');
    expect(displayForm('sk-live-0123456789abcdef')).toBe('sk-l…cdef');
    expect(displayForm('short')).toBe('…');
  });
});
