import { print } from '@0no-co/graphql.web';
import type { TadaDocumentNode } from 'gql.tada';

/** A failed request: the server's message, its error code when it gave one, and the HTTP status. */
export class RequestError extends Error {
  override name = 'RequestError';
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Called with every 401, so the app can send the person to the sign-in page. */
let onUnauthenticated: (() => void) | undefined;
export function whenUnauthenticated(handler: () => void): void {
  onUnauthenticated = handler;
}

/**
 * Runs one operation against /graphql with the session cookie (same origin only). GraphQL errors
 * and HTTP failures become a RequestError carrying the server's own message, which pages show as
 * they are: the server's messages are written for people.
 */
export async function request<Result, Variables>(document: TadaDocumentNode<Result, Variables>, variables?: Variables): Promise<Result> {
  return send(JSON.stringify({ query: print(document), variables: variables ?? {} }), { 'content-type': 'application/json' });
}

/**
 * Runs an operation whose variables hold File objects as a GraphQL multipart request (the
 * `operations`, `map` and one part per file of github.com/jaydenseric/graphql-multipart-request-spec),
 * the form the server's importLibrary reads.
 */
export async function upload<Result, Variables>(document: TadaDocumentNode<Result, Variables>, variables: Variables): Promise<Result> {
  const files: [string, File][] = [];
  // A File serializes as {}; collectFiles replaces each with null, as the spec has it.
  const withoutFiles: unknown = JSON.parse(JSON.stringify(variables));
  collectFiles(variables, 'variables', files, withoutFiles, []);
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: print(document), variables: withoutFiles }));
  form.append('map', JSON.stringify(Object.fromEntries(files.map(([path], index) => [String(index), [path]]))));
  files.forEach(([, file], index) => form.append(String(index), file, file.name));
  return send(form, {});
}

/** Finds every File in `value`, records its object path and sets it to null in the JSON copy. */
function collectFiles(value: unknown, path: string, found: [string, File][], copy: unknown, keys: (string | number)[]): void {
  if (value instanceof File) {
    found.push([path, value]);
    let target = copy as Record<string | number, unknown>;
    keys.slice(0, -1).forEach((key) => (target = target[key] as Record<string | number, unknown>));
    target[keys[keys.length - 1]!] = null;
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => collectFiles(item, `${path}.${index}`, found, copy, [...keys, index]));
  } else if (value && typeof value === 'object') {
    Object.entries(value).forEach(([key, item]) => collectFiles(item, `${path}.${key}`, found, copy, [...keys, key]));
  }
}

interface GraphQLBody {
  data?: unknown;
  errors?: { message: string; extensions?: { code?: string } }[];
  error?: string;
}

async function send<Result>(body: BodyInit, headers: Record<string, string>): Promise<Result> {
  let response: Response;
  try {
    response = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { accept: 'application/graphql-response+json, application/json', ...headers },
      body,
    });
  } catch {
    throw new RequestError('the server cannot be reached; check your connection and try again', 'NETWORK', 0);
  }
  let parsed: GraphQLBody | undefined;
  try {
    parsed = (await response.json()) as GraphQLBody;
  } catch {
    parsed = undefined;
  }
  const first = parsed?.errors?.[0];
  const code = first?.extensions?.code;
  if (response.status === 401 || code === 'UNAUTHENTICATED') onUnauthenticated?.();
  if (first) throw new RequestError(first.message, code, response.status);
  if (!response.ok || !parsed || parsed.data == null) {
    throw new RequestError(parsed?.error ?? `the server answered ${response.status}`, undefined, response.status);
  }
  return parsed.data as Result;
}
