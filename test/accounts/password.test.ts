import { describe, expect, it } from 'vitest';
import { checkPasswordRules, dummyVerify, hashPassword, verifyPassword } from '../../src/accounts/password-hash.ts';
import { InputError } from '../../src/errors.ts';

describe('hashPassword / verifyPassword', { timeout: 60_000 }, () => {
  it('stores scrypt at N=2^17, r=8, p=1 with a fresh salt, and verifies only the same password', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');
    expect(first).toMatch(/^scrypt\$17\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(second).not.toBe(first);
    expect(await verifyPassword('correct horse battery', first)).toBe(true);
    expect(await verifyPassword('correct horse batterY', first)).toBe(false);
    expect(await verifyPassword('', first)).toBe(false);
  });

  it('treats the password as NFC, so the same letters typed two ways match', async () => {
    const stored = await hashPassword('Zoe\u0308 password');
    expect(await verifyPassword('Zo\u00eb password', stored)).toBe(true);
  });

  it('refuses unreadable or tampered stored values (never throws), including absurd costs', async () => {
    const stored = await hashPassword('some password');
    for (const bad of ['', 'plain', stored.replace('scrypt', 'bcrypt'), stored.replace('$17$', '$30$'), stored.replace('$8$', '$99$'), 'scrypt$17$8$1$$']) {
      expect(await verifyPassword('some password', bad)).toBe(false);
    }
  });

  it('refuses a password past the maximum without comparing it', async () => {
    const stored = await hashPassword('x'.repeat(200));
    expect(await verifyPassword('x'.repeat(200), stored)).toBe(true);
    expect(await verifyPassword('x'.repeat(201), stored)).toBe(false);
  });

  it('checks the rules: 8 to 200 characters, counted as code points', async () => {
    expect(() => checkPasswordRules('1234567')).toThrow(InputError);
    expect(() => checkPasswordRules('x'.repeat(201))).toThrow(/at most 200/);
    expect(() => checkPasswordRules('🎬🎬🎬🎬🎬🎬🎬🎬')).not.toThrow();
    expect(() => checkPasswordRules('🎬🎬🎬🎬')).toThrow(/at least 8/);
    await expect(hashPassword('short')).rejects.toThrow(InputError);
  });

  it('dummyVerify takes about as long as a real verification', async () => {
    const stored = await hashPassword('a real password');
    const time = async (work: () => Promise<unknown>) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    // The quickest of three of each, so that one stall of a shared machine does not decide.
    const quickest = async (work: () => Promise<unknown>) => Math.min(await time(work), await time(work), await time(work));
    const real = await quickest(() => verifyPassword('a wrong password', stored));
    const dummy = await quickest(() => dummyVerify());
    expect(await dummyVerify()).toBe(false);
    // Loose on purpose: both must do the full scrypt work.
    expect(dummy).toBeGreaterThan(real / 4);
    expect(real).toBeGreaterThan(dummy / 4);
  });

  it('runs at most two hashes at once, yet finishes every one', async () => {
    const stored = await hashPassword('parallel password');
    const results = await Promise.all(Array.from({ length: 5 }, (_, index) => verifyPassword(index === 2 ? 'parallel password' : 'nope nope nope', stored)));
    expect(results).toEqual([false, false, true, false, false]);
  });
});
