import { InputError } from '../../errors.ts';

/**
 * A channel URL in Apprise's notation, split into its parts: `scheme://user:password@host:port/path?query`.
 * Apprise reads the query its own way, and so does this: `&` and `;` separate pairs, a `+` stays
 * a `+` (tokens hold them), keys are case-insensitive, and keys starting with `+`, `-` or `:` are
 * kept apart (with their case) as extra headers, query parameters and payload fields.
 */
export interface AppriseUrl {
  /** Lower case, without `://`. */
  scheme: string;
  /** Percent-decoded; null when absent. */
  user: string | null;
  password: string | null;
  /** Percent-decoded; brackets kept around an IPv6 address; may be empty. */
  host: string;
  port: number | null;
  /** The path's segments, percent-decoded, empty ones left out. */
  path: string[];
  /** Options by lower-case key (the last of a repeated key wins). */
  options: Map<string, string>;
  /** `+Name=value`: extra request headers. */
  headers: Record<string, string>;
  /** `-name=value`: extra query parameters of the request. */
  params: Record<string, string>;
  /** `:name=value`: payload fields (JSON kind: rename, remove or add). */
  payload: Record<string, string>;
}

/** The longest channel URL read: far above any real one, so a pasted novel is refused at once. */
export const maxChannelUrlLength = 4096;

/**
 * Splits a channel URL into its parts, or throws InputError naming the part at fault (`label`
 * names the kind in the message). Values of secret parts never appear in a message.
 */
export function parseAppriseUrl(text: string, label: string): AppriseUrl {
  if (text.length > maxChannelUrlLength) throw bad(label, `the URL is longer than ${maxChannelUrlLength} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text.trim())) throw bad(label, 'the URL holds control characters (a line break?)');
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?]*)([^?]*)(?:\?(.*))?$/is.exec(text.trim());
  if (!match) throw bad(label, 'not a URL of the form scheme://…');
  const [, scheme, authority, pathText, queryText] = match as unknown as [string, string, string, string, string | undefined];
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\s]/.test(authority + pathText)) throw bad(label, 'the address holds spaces or control characters');
  const at = authority.lastIndexOf('@');
  const userInfo = at >= 0 ? authority.slice(0, at) : null;
  const hostPort = at >= 0 ? authority.slice(at + 1) : authority;
  let user: string | null = null;
  let password: string | null = null;
  if (userInfo !== null) {
    const colon = userInfo.indexOf(':');
    user = decodePart(colon >= 0 ? userInfo.slice(0, colon) : userInfo, 'user name', label);
    password = colon >= 0 ? decodePart(userInfo.slice(colon + 1), 'password', label) : null;
  }
  const { host, port } = splitHostPort(hostPort, label);
  const path = pathText
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment, index) => decodePart(segment, `path segment ${index + 1}`, label));
  const url: AppriseUrl = { scheme: scheme.toLowerCase(), user, password, host, port, path, options: new Map(), headers: {}, params: {}, payload: {} };
  if (queryText !== undefined) readQuery(queryText, url, label);
  return url;
}

function splitHostPort(text: string, label: string): { host: string; port: number | null } {
  let host = text;
  let portText: string | null = null;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) throw bad(label, 'the host has an opening [ without its ]');
    host = text.slice(0, close + 1);
    const rest = text.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw bad(label, 'unexpected text after the IPv6 address');
      portText = rest.slice(1);
    }
  } else {
    const colon = text.lastIndexOf(':');
    if (colon >= 0) {
      host = text.slice(0, colon);
      portText = text.slice(colon + 1);
    }
  }
  let port: number | null = null;
  if (portText !== null) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw bad(label, `the port must be a number from 1 to 65535, not "${portText.slice(0, 10)}"`);
    }
    port = Number(portText);
  }
  return { host: decodePart(host, 'host', label), port };
}

function readQuery(text: string, url: AppriseUrl, label: string): void {
  for (const pair of text.split(/[&;]/)) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawKey = equals >= 0 ? pair.slice(0, equals) : pair;
    const rawValue = equals >= 0 ? pair.slice(equals + 1) : '';
    const key = decodePart(rawKey, 'option name', label).trim();
    // The value of an option may be secret (a token): a malformed one is not quoted.
    const value = decodePart(rawValue, `option ${key.slice(0, 30)}`, label).trim();
    if (key === '') continue;
    const prefix = key[0];
    if (prefix === '+' && key.length > 1) url.headers[key.slice(1)] = value;
    else if (prefix === '-' && key.length > 1) url.params[key.slice(1)] = value;
    else if (prefix === ':' && key.length > 1) url.payload[key.slice(1)] = value;
    else url.options.set(key.toLowerCase(), value);
  }
}

function decodePart(text: string, part: string, label: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw bad(label, `the ${part} holds a malformed %-escape`);
  }
}

/** An InputError for a channel URL, on the `url` field, prefixed with the kind. */
export function bad(label: string, message: string): InputError {
  return new InputError(`${label}: ${message}`, 'url');
}

const trueWords = ['yes', 'true', '1', 'on', 'enable', 'enabled', 'y'];
const falseWords = ['no', 'false', '0', 'off', 'disable', 'disabled', 'n'];

/** A yes/no option (Apprise's words), `fallback` when absent or empty. */
export function booleanOption(url: AppriseUrl, key: string, fallback: boolean, label: string): boolean {
  const value = url.options.get(key);
  if (value === undefined || value === '') return fallback;
  const word = value.toLowerCase();
  if (trueWords.includes(word)) return true;
  if (falseWords.includes(word)) return false;
  throw bad(label, `${key}= must be yes or no, not "${value.slice(0, 20)}"`);
}

/** The non-empty value of the first of `keys` present, or undefined. */
export function textOption(url: AppriseUrl, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = url.options.get(key);
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** Options a kind does not know are refused, so a typo never silently does nothing. */
export function refuseUnknownOptions(url: AppriseUrl, known: readonly string[], label: string): void {
  // Apprise's own options that every kind accepts and that change nothing here.
  const general = ['format', 'overflow', 'emojis', 'verify', 'rto', 'cto', 'store', 'tz'];
  for (const key of url.options.keys()) {
    if (!known.includes(key) && !general.includes(key)) throw bad(label, `unknown option "${key.slice(0, 30)}" (known: ${known.join(', ')})`);
  }
}

/**
 * The http(s) base of a self-hosted peer named by host and port (`http://host:port`), checked to
 * be a valid host; `secure` picks https.
 */
export function peerOrigin(url: AppriseUrl, secure: boolean, label: string): URL {
  if (url.host === '') throw bad(label, 'the host is missing');
  let origin: URL;
  try {
    origin = new URL(`${secure ? 'https' : 'http'}://${url.host}${url.port === null ? '' : `:${url.port}`}`);
  } catch {
    throw bad(label, `"${url.host.slice(0, 60)}" is not a valid host name or address`);
  }
  if (origin.pathname !== '/' || origin.search !== '' || origin.username !== '') throw bad(label, 'the host is not a plain host name or address');
  return origin;
}

/** Percent-encodes one path segment (a token) for a request path. */
export const pathSegment = (text: string): string => encodeURIComponent(text);

/** A secret shown as its first characters and an ellipsis (`tk_a…`), or only `…` when short. */
export function redact(secret: string, visible = 4): string {
  return secret.length <= visible * 2 ? '…' : `${secret.slice(0, visible)}…`;
}

/** Headers a URL may not set: they belong to the connection or the body. */
const reservedHeaders = ['host', 'content-length', 'transfer-encoding', 'connection', 'content-type', 'upgrade', 'te', 'trailer', 'expect'];

/**
 * The `+Name=value` headers of a URL, checked: a name of token characters, not one of the
 * connection's own, and a value without control characters (no header can smuggle another).
 */
export function extraHeaders(url: AppriseUrl, label: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(url.headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/.test(name)) throw bad(label, `+${name.slice(0, 30)} is not a valid header name`);
    if (reservedHeaders.includes(name.toLowerCase())) throw bad(label, `the header ${name} cannot be set`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value) || value.length > 4000) throw bad(label, `the header ${name}'s value holds control characters or is too long`);
    headers[name] = value;
  }
  return headers;
}
