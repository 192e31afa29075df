import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { ConflictError, InputError, NotFoundError } from '../../src/errors.ts';
import { createAccount, findAccountByName, listAccounts, presentAccount, updateAccount } from '../../src/accounts/accounts.ts';
import { useTestDatabase } from '../support/database.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { findWebhook } from '../../src/accounts/webhook-setting.ts';

// Webhook URLs are stored sealed with the secret key.
initSecretKey(await useTestDatabase());

/** A name no other test uses. */
function uniqueName(): string {
  return `user-${randomUUID().slice(0, 8)}`;
}

describe('createAccount', () => {
  it('creates an account in UTC by default, trimming the name', async () => {
    const name = uniqueName();
    const account = await createAccount({ name: `  ${name} ` });
    expect(account).toMatchObject({ name, timezone: 'UTC', feedVersion: 0 });
    expect(await findWebhook(account.id)).toBeNull();
    expect(await findAccountByName(name)).toMatchObject({ id: account.id });
  });

  it('stores the canonical spelling of the time zone', async () => {
    const account = await createAccount({ name: uniqueName(), timezone: 'europe/paris' });
    expect(account.timezone).toBe('Europe/Paris');
  });

  it('accepts letters of any script, digits and ._-@', async () => {
    const name = `Zoë.ß_1-@${randomUUID().slice(0, 6)}`;
    expect((await createAccount({ name })).name).toBe(name);
  });

  it('refuses empty, too long and badly-charactered names', async () => {
    for (const name of ['', '   ', 'a'.repeat(65), 'has space', 'semi;colon', 'slash/name', 'quote"']) {
      await expect(createAccount({ name }), JSON.stringify(name)).rejects.toThrow(InputError);
    }
    expect((await createAccount({ name: `${'b'.repeat(56)}${randomUUID().slice(0, 8)}` })).name).toHaveLength(64);
  });

  it('refuses an unknown time zone', async () => {
    await expect(createAccount({ name: uniqueName(), timezone: 'Mars/Olympus' })).rejects.toThrow(/unknown time zone "Mars\/Olympus"/);
    await expect(createAccount({ name: uniqueName(), timezone: '' })).rejects.toThrow(InputError);
  });

  it('refuses a taken name with ConflictError', async () => {
    const name = uniqueName();
    await createAccount({ name });
    await expect(createAccount({ name })).rejects.toThrow(ConflictError);
    await expect(createAccount({ name: ` ${name}` })).rejects.toThrow(`an account named "${name}" already exists`);
  });
});

describe('listAccounts and findAccountByName', () => {
  it('lists accounts oldest first', async () => {
    const first = await createAccount({ name: uniqueName() });
    const second = await createAccount({ name: uniqueName() });
    const ids = (await listAccounts()).map((account) => account.id);
    expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(second.id));
  });

  it('throws NotFoundError naming the user', async () => {
    await expect(findAccountByName('nobody-here')).rejects.toThrow(NotFoundError);
    await expect(findAccountByName('nobody-here')).rejects.toThrow('unknown user "nobody-here"');
  });
});

describe('updateAccount', () => {
  it('changes the time zone and bumps feedVersion in the same write', async () => {
    const account = await createAccount({ name: uniqueName() });
    const updated = await updateAccount({ name: account.name, timezone: 'America/New_York' });
    expect(updated).toMatchObject({ timezone: 'America/New_York', feedVersion: 1 });
    expect(await db().account.findUniqueOrThrow({ where: { id: account.id } })).toMatchObject({ timezone: 'America/New_York', feedVersion: 1 });
  });

  it('sets and clears the webhook URL', async () => {
    const account = await createAccount({ name: uniqueName() });
    const set = await updateAccount({ name: account.name, webhookUrl: 'http://homeassistant.local:8123/api/webhook/airdate' });
    expect((await findWebhook(account.id))?.url).toBe('http://homeassistant.local:8123/api/webhook/airdate');
    expect(set.feedVersion).toBe(1);
    const cleared = await updateAccount({ name: account.name, webhookUrl: '' });
    expect(await findWebhook(account.id)).toBeNull();
    expect(cleared.feedVersion).toBe(2);
  });

  it('changes nothing (and keeps feedVersion) when the values are the same or absent', async () => {
    const account = await createAccount({ name: uniqueName(), timezone: 'Asia/Tokyo' });
    expect((await updateAccount({ name: account.name })).feedVersion).toBe(0);
    expect((await updateAccount({ name: account.name, timezone: 'Asia/Tokyo', webhookUrl: '' })).feedVersion).toBe(0);
  });

  it('turns a webhook that answered 410 Gone back on when the URL is set again, even unchanged', async () => {
    const account = await createAccount({ name: uniqueName() });
    const url = 'https://hooks.example.com/airdate';
    await updateAccount({ name: account.name, webhookUrl: url });
    await db().notificationChannel.updateMany({ where: { accountId: account.id, kind: 'webhook' }, data: { enabled: false, disabledAt: new Date(), disabledReason: 'gone' } });
    const again = await updateAccount({ name: account.name, webhookUrl: url });
    expect(await findWebhook(account.id)).toMatchObject({ url, enabled: true, disabledAt: null, disabledReason: null });
    // An unchanged, active URL is no change at all.
    expect((await updateAccount({ name: account.name, webhookUrl: url })).feedVersion).toBe(again.feedVersion);
  });

  it('refuses relative, non-http and malformed webhook URLs', async () => {
    const account = await createAccount({ name: uniqueName() });
    for (const webhookUrl of ['/relative/path', 'ftp://example.com/hook', 'javascript:alert(1)', 'not a url', 'example.com/hook']) {
      await expect(updateAccount({ name: account.name, webhookUrl }), webhookUrl).rejects.toThrow(InputError);
    }
    expect((await findAccountByName(account.name)).feedVersion).toBe(0);
  });

  it('sets the summary profile, bumping feedVersion once per real change (the cached summary is keyed by it)', async () => {
    const account = await createAccount({ name: uniqueName() });
    expect(account.summaryProfile).toBe('full');
    const set = await updateAccount({ name: account.name, summaryProfile: 'home-assistant', timezone: 'Europe/Paris' });
    expect(set).toMatchObject({ summaryProfile: 'home-assistant', timezone: 'Europe/Paris', feedVersion: 1 });
    expect((await updateAccount({ name: account.name, summaryProfile: ' home-assistant ' })).feedVersion).toBe(1);
    expect(await updateAccount({ name: account.name, summaryProfile: 'full' })).toMatchObject({ summaryProfile: 'full', feedVersion: 2 });
  });

  it('refuses an unknown summary profile and changes nothing, the other fields of the call included', async () => {
    const account = await createAccount({ name: uniqueName() });
    for (const summaryProfile of ['HOME_ASSISTANT', 'homeassistant', 'Full', '', 'x'.repeat(1_000_000)]) {
      const attempt = updateAccount({ name: account.name, timezone: 'Asia/Tokyo', summaryProfile });
      await expect(attempt, summaryProfile.slice(0, 20)).rejects.toThrow(InputError);
      await expect(updateAccount({ name: account.name, summaryProfile }), summaryProfile.slice(0, 20)).rejects.toThrow(/^unknown summary profile ".{0,60}": use full or home-assistant$/);
    }
    expect(await findAccountByName(account.name)).toMatchObject({ summaryProfile: 'full', timezone: 'UTC', feedVersion: 0 });
  });

  it('refuses an unknown account or time zone', async () => {
    await expect(updateAccount({ name: 'nobody-here', timezone: 'UTC' })).rejects.toThrow(NotFoundError);
    const account = await createAccount({ name: uniqueName() });
    await expect(updateAccount({ name: account.name, timezone: 'Nowhere/Land' })).rejects.toThrow(InputError);
  });
});

describe('presentAccount', () => {
  it('shows id, name, time zone, webhook URL and summary profile, and no secrets', async () => {
    const account = await createAccount({ name: uniqueName() });
    await db().account.update({ where: { id: account.id }, data: { webhookSecretEnc: 'v1.secret' } });
    const stored = await findAccountByName(account.name);
    expect(await presentAccount(stored)).toEqual({ id: account.id, name: account.name, timezone: 'UTC', webhookUrl: null, summaryProfile: 'full' });
    // A value no version of Airdate writes (a hand-edited row) reads as the default.
    expect((await presentAccount({ ...stored, summaryProfile: 'compact' })).summaryProfile).toBe('full');
  });
});
