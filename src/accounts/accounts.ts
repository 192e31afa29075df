import { db } from '../db/client.ts';
import { ConflictError, InputError, NotFoundError } from '../errors.ts';
import type { Account, Prisma } from '../generated/prisma/client.ts';
import { refuseCompatibilityCharacters, refuseLookAlike } from './account-names.ts';
import { isUniqueViolation } from '../db/prisma-errors.ts';
import { canonicalTimeZone } from '../time/dates.ts';
import { inputLengths, transactionTimes } from '../limits.ts';
import { exceedsLength, quoted } from '../value-bounds.ts';
import { hashPassword } from './password-hash.ts';
import { accountVersionBumps } from '../db/stale-versions.ts';
import { findWebhook, writeWebhook } from './webhook-setting.ts';

/** What the command line prints and other tools read about an account. */
export interface PresentedAccount {
  id: number;
  name: string;
  timezone: string;
  webhookUrl: string | null;
  summaryProfile: SummaryProfile;
}

/**
 * What GET /api/machine/summary answers for the account: `full`, the specification's summary, or
 * `home-assistant`, a summary every sensor of the Home Assistant integration can hold (docs/api.md
 * "Summary"). The integration can send nothing but the bare request, so the account decides.
 */
export const summaryProfiles = ['full', 'home-assistant'] as const;
export type SummaryProfile = (typeof summaryProfiles)[number];

// Letters and digits of any script, plus a few separators that are safe in a shell and a URL.
const namePattern = /^[\p{L}\p{N}._@-]+$/u;

/**
 * Creates an account. The name is trimmed and must be 1–64 letters, digits or `._-@`, in NFKC
 * form; the time zone is an IANA name (default `UTC`), stored in its canonical spelling. Every
 * text is checked against its length in src/limits.ts before anything else looks at it.
 * Throws InputError for either, ConflictError when the name is taken or looks like a taken one
 * (account-names.ts).
 */
export async function createAccount(props: NewAccountProps): Promise<Account> {
  return insertAccount(await newAccountData(props));
}

/** What createAccount takes. */
export interface NewAccountProps {
  /** Login-style name, unique across the server. */
  name: string;
  /** IANA time zone the account's "today" is computed in. */
  timezone?: string;
  /** Sign-in password (8–200 characters), stored as a scrypt hash; none: no password sign-in. */
  password?: string;
  /** `admin` or `user` (the default). */
  role?: AccountRole;
  /** Who asked (the client's address, for the password hashing queue); undefined from the command line. */
  address?: string | undefined;
}

/** A checked account row, ready to insert: the slow password hash is done before any transaction. */
export interface NewAccountData {
  name: string;
  timezone: string;
  passwordHash: string | null;
  role: AccountRole;
  /** The single sign-on identity it is made for (oidc-accounts.ts); none by default. */
  oidcSubject?: string;
}

/** Checks and normalises `props` (InputError) and hashes the password. */
export async function newAccountData(props: NewAccountProps): Promise<NewAccountData> {
  const name = normaliseName(props.name);
  const timezone = canonicalZoneOrFail(props.timezone ?? 'UTC');
  // Checked after name and zone, so a bad one answers without the slow hash.
  const passwordHash = props.password === undefined ? null : await hashPassword(props.password, props.address);
  return { name, timezone, passwordHash, role: props.role ?? 'user' };
}

/**
 * Inserts a checked account in `tx` (a transaction of the caller's, or its own); ConflictError when
 * the name is taken or looks like a taken one (account-names.ts refuseLookAlike), and nothing is
 * kept. The row is written before the names are read: on SQLite the transaction then holds the
 * write lock from its first statement (a read first could not take it once another process had
 * written since, and would fail instead of waiting), so no other write comes between the check
 * and the commit.
 */
export async function insertAccount(data: NewAccountData, tx?: Prisma.TransactionClient): Promise<Account> {
  // Another process's write (an import's transaction) may keep the first statement waiting for the lock.
  if (tx === undefined) return db().$transaction((own) => insertAccount(data, own), { maxWait: transactionTimes.sqliteWaitMs, timeout: transactionTimes.sqliteWaitMs });
  let account: Account;
  try {
    account = await tx.account.create({ data });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`an account named "${data.name}" already exists`);
    throw error;
  }
  await refuseLookAlike(data.name, tx);
  return account;
}

/** What an account may do: `admin` also manages accounts (docs/accounts.md). */
export const accountRoles = ['admin', 'user'] as const;
export type AccountRole = (typeof accountRoles)[number];

/** Every account, oldest first. */
export async function listAccounts(): Promise<Account[]> {
  return db().account.findMany({ orderBy: { id: 'asc' } });
}

/** The account with exactly this name (surrounding spaces ignored); NotFoundError otherwise. */
export async function findAccountByName(name: string): Promise<Account> {
  refuseLonger(name.trim(), inputLengths.accountName, 'name', 'the account name');
  const trimmed = name.trim().normalize('NFC');
  const account = await db().account.findUnique({ where: { name: trimmed } });
  if (!account) throw new NotFoundError(`unknown user "${trimmed}"`);
  return account;
}

/**
 * Changes an account's settings. Only the given fields change; a real change bumps `feedVersion`
 * in the same write, so cached feeds (which depend on the time zone) are never served stale.
 */
export async function updateAccount(props: {
  /** The account to change. */
  name: string;
  /** New IANA time zone. */
  timezone?: string;
  /** New release-notification target: an absolute http(s) URL, or "" to turn notifications off. */
  webhookUrl?: string;
  /** New summary profile, one of summaryProfiles. */
  summaryProfile?: string;
  /** Publish the library to the MQTT broker for Home Assistant (src/home-assistant), or stop. */
  homeAssistantMqtt?: boolean;
}): Promise<Account> {
  const account = await findAccountByName(props.name);
  const changes: { timezone?: string; summaryProfile?: SummaryProfile; homeAssistantMqtt?: boolean } = {};
  if (props.timezone !== undefined) {
    const timezone = canonicalZoneOrFail(props.timezone);
    if (timezone !== account.timezone) changes.timezone = timezone;
  }
  const webhookUrl = props.webhookUrl === undefined ? undefined : parseWebhookUrl(props.webhookUrl);
  if (props.summaryProfile !== undefined) {
    // The cached summary bodies are keyed by feedVersion, which the change bumps below.
    const summaryProfile = parseSummaryProfile(props.summaryProfile);
    if (summaryProfile !== account.summaryProfile) changes.summaryProfile = summaryProfile;
  }
  if (props.homeAssistantMqtt !== undefined && props.homeAssistantMqtt !== account.homeAssistantMqtt) changes.homeAssistantMqtt = props.homeAssistantMqtt;
  // Setting the URL again, even the same one, turns deliveries back on after a 410 Gone.
  const webhookChanged = webhookUrl !== undefined && (await writeWebhook(account.id, webhookUrl, await findWebhook(account.id)));
  if (Object.keys(changes).length === 0 && !webhookChanged) return account;
  return db().account.update({ where: { id: account.id }, data: { ...changes, ...accountVersionBumps({ settings: true }) } });
}

/** The public view of an account: `{ id, name, timezone, webhookUrl, summaryProfile }`, never secrets. */
export async function presentAccount(account: Pick<Account, 'id' | 'name' | 'timezone' | 'summaryProfile'>): Promise<PresentedAccount> {
  return {
    id: account.id,
    name: account.name,
    timezone: account.timezone,
    webhookUrl: (await findWebhook(account.id))?.url ?? null,
    summaryProfile: storedSummaryProfile(account.summaryProfile),
  };
}

/** A stored profile as its type; anything else (a hand-edited row) reads as the default, `full`. */
export function storedSummaryProfile(stored: string): SummaryProfile {
  return (summaryProfiles as readonly string[]).includes(stored) ? (stored as SummaryProfile) : 'full';
}

/** One of summaryProfiles, exactly as written (surrounding spaces ignored), or InputError. */
function parseSummaryProfile(raw: string): SummaryProfile {
  const text = raw.trim();
  if ((summaryProfiles as readonly string[]).includes(text)) return text as SummaryProfile;
  throw new InputError(`unknown summary profile ${quoted(text)}: use ${summaryProfiles.join(' or ')}`, 'summaryProfile');
}

/** InputError naming `field` and the limit when `text` has more than `max` characters. */
function refuseLonger(text: string, max: number, field: string, what: string): void {
  if (exceedsLength(text, max)) throw new InputError(`${what} must be at most ${max} characters`, field);
}

function normaliseName(raw: string): string {
  const trimmed = raw.trim();
  // Checked before NFC too, so a megabyte name costs no normalisation.
  refuseLonger(trimmed, inputLengths.accountName, 'name', 'the account name');
  // NFC so that "Zoë" typed on two keyboards is one account, not two look-alikes.
  const name = trimmed.normalize('NFC');
  if (name === '') throw new InputError('the account name must not be empty', 'name');
  refuseLonger(name, inputLengths.accountName, 'name', 'the account name');
  if (!namePattern.test(name)) {
    throw new InputError(`invalid account name "${name}": use letters, digits and . _ - @ only`, 'name');
  }
  refuseCompatibilityCharacters(name);
  return name;
}

/** The canonical spelling of an IANA time zone (`europe/paris` → `Europe/Paris`), or InputError. */
function canonicalZoneOrFail(timeZone: string): string {
  // Before Intl sees it: the longest real name has 32 characters.
  refuseLonger(timeZone.trim(), inputLengths.timezone, 'timezone', 'the time zone');
  const canonical = canonicalTimeZone(timeZone.trim());
  if (canonical === null) throw new InputError(`unknown time zone "${timeZone}": use an IANA name such as Europe/Paris`, 'timezone');
  return canonical;
}

/**
 * "" clears the webhook; anything else must be an absolute http(s) URL of at most
 * inputLengths.webhookUrl characters, as sent and as stored (the URL parser percent-encodes
 * spaces and non-ASCII characters, which can make the stored form up to nine times longer).
 */
function parseWebhookUrl(raw: string): string | null {
  const text = raw.trim();
  if (text === '') return null;
  const tooLong = `the webhook URL must be at most ${inputLengths.webhookUrl} characters`;
  if (exceedsLength(text, inputLengths.webhookUrl)) throw new InputError(tooLong, 'webhookUrl');
  const invalid = `invalid webhook URL ${quoted(text)}: use an absolute http:// or https:// URL`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InputError(invalid, 'webhookUrl');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InputError(invalid, 'webhookUrl');
  if (exceedsLength(url.href, inputLengths.webhookUrl)) throw new InputError(`${tooLong} once encoded (${url.href.length})`, 'webhookUrl');
  return url.href;
}
