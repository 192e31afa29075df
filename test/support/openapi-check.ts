import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { ValidateFunction } from 'ajv';

/**
 * Checks REST responses against the OpenAPI document (src/openapi/openapi-document.ts):
 * path, method, status and content type must be documented, and a JSON body must match its
 * schema (ajv, draft 2020-12). test/support/openapi-setup.ts feeds it every response the suite
 * sees. Nothing is loaded before the first response of a documented path: ajv and the document
 * cost a file that never sees one nothing.
 */

type JsonObject = Record<string, any>;

interface Checker {
  document: JsonObject;
  /** Documented templates as patterns, with the enum of their path parameter values when there is one. */
  templates: { template: string; pattern: RegExp; values?: string[] }[];
  validator(schema: JsonObject): ValidateFunction;
}

let checker: Promise<Checker> | undefined;

async function load(): Promise<Checker> {
  const [{ buildOpenApiDocument }, { restRoutes }, { Ajv2020 }, formats] = await Promise.all([
    import('../../src/openapi/openapi-document.ts'),
    import('../../src/routes.ts'),
    import('ajv/dist/2020.js'),
    import('ajv-formats'),
  ]);
  const document = buildOpenApiDocument('test', restRoutes) as JsonObject;
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  // CommonJS through ESM: the plugin is the module's default, or that default's own default.
  type AddFormats = (ajv: InstanceType<typeof Ajv2020>) => unknown;
  const plugin = formats.default as unknown as AddFormats & { default?: AddFormats };
  (plugin.default ?? plugin)(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
  const compiled = new WeakMap<JsonObject, ValidateFunction>();
  const templates = Object.keys(document.paths).map((template) => {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '([^/]+)')}$`);
    const parameter = Object.values(document.paths[template] as JsonObject)
      .flatMap((operation: JsonObject) => operation.parameters ?? [])
      .find((candidate: JsonObject) => candidate.in === 'path');
    const enumRef: string | undefined = parameter?.schema?.$ref;
    const values = enumRef ? (document.components.schemas[enumRef.split('/').pop()!].enum as string[]) : undefined;
    return { template, pattern, ...(values ? { values } : {}) };
  });
  return {
    document,
    templates,
    validator(schema) {
      const known = compiled.get(schema);
      if (known !== undefined) return known;
      // Component references resolve in the document added above.
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')) as JsonObject);
      compiled.set(schema, validate);
      return validate;
    },
  };
}

/** The path as the server routes it: trailing slashes dropped. */
const routedPath = (pathname: string) => (pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname);

/** Whether a request path is where the document's paths live (not GraphQL, the web app, a test's peers). */
export function documentedPaths(pathname: string): boolean {
  return /^\/(api\/|healthz$|readyz$)/.test(routedPath(pathname));
}

function decoded(bytes: Buffer, encoding: string | null): Buffer {
  if (encoding === 'gzip') return gunzipSync(bytes);
  if (encoding === 'br') return brotliDecompressSync(bytes);
  if (encoding === 'deflate') return inflateSync(bytes);
  return bytes;
}

/**
 * The ways `response` to `method url` breaks the document (empty when it keeps it, or when the
 * path is not one the document describes). Reads the body: give it a response nobody else reads
 * (openapi-setup.ts passes a clone).
 */
export async function checkResponse(method: string, url: string, response: Response): Promise<string[]> {
  const path = routedPath(new URL(url).pathname);
  if (!documentedPaths(path)) return [];
  const { document, templates, validator } = await (checker ??= load());
  const found = templates.find(({ pattern, values }) => {
    const match = pattern.exec(path);
    if (match === null || values === undefined) return match !== null;
    try {
      return values.includes(decodeURIComponent(match[1]!));
    } catch {
      return false; // Not a source name (malformed escapes): the 404 of an unknown path.
    }
  });
  if (found === undefined) return [];
  const where = `${method} ${path} → ${response.status}`;
  const operation: JsonObject | undefined = document.paths[found.template][method.toLowerCase()];
  if (operation === undefined) {
    // A method the path does not take: the 405 every route answers.
    return response.status === 405 ? [] : [`${where}: ${method} is not documented for ${found.template}, and the answer is not a 405`];
  }
  const documented: JsonObject | undefined = operation.responses[String(response.status)];
  if (documented === undefined) return [`${where}: status ${response.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`];
  if (method === 'HEAD' || response.status === 304) return [];
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const content: JsonObject | undefined = documented.content?.[type];
  if (content === undefined) return [`${where}: content type "${type}" is not documented (documented: ${Object.keys(documented.content ?? {}).join(', ') || 'no body'})`];
  if (type !== 'application/json') return [];
  let value: unknown;
  try {
    value = JSON.parse(decoded(Buffer.from(await response.arrayBuffer()), response.headers.get('content-encoding')).toString('utf8'));
  } catch (error) {
    // A download that fails midway is ended on purpose with a line that keeps it from parsing
    // (docs/api.md "Export"): no client may take it for a whole library.
    const download = /^attachment/.test(response.headers.get('content-disposition') ?? '');
    if (error instanceof SyntaxError && !download) return [`${where}: the body is not JSON`];
    // Otherwise, a body cut short by a killed server or an aborted request is the test's business.
    return [];
  }
  const validate = validator(content.schema);
  if (validate(value)) return [];
  const errors = (validate.errors ?? []).slice(0, 5).map((problem) => `${problem.instancePath || '/'} ${problem.message}${problem.params ? ` ${JSON.stringify(problem.params)}` : ''}`);
  return [`${where}: the body does not match ${JSON.stringify(content.schema)}: ${errors.join('; ')}`];
}
