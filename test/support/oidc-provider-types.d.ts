/**
 * The parts of oidc-provider 9 the test harness uses. The package ships no type declarations
 * (and @types/oidc-provider describes older majors), so this names only what
 * test/support/oidc-provider.ts calls, to keep those calls checked.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[] } };
    params: Record<string, unknown> & { client_id: string };
    session?: { accountId: string };
    grantId?: string;
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  export interface ClaimsAccount {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  export interface Configuration {
    clients: Record<string, unknown>[];
    jwks: { keys: Record<string, unknown>[] };
    cookies: { keys: string[] };
    claims: Record<string, string[]>;
    scopes: string[];
    pkce: { required: () => boolean };
    ttl: Record<string, number>;
    features: Record<string, { enabled: boolean }>;
    interactions: { url: (context: unknown, interaction: { uid: string }) => string | Promise<string> };
    findAccount: (context: unknown, sub: string) => Promise<ClaimsAccount | undefined>;
    enabledJWA?: { idTokenSigningAlgValues?: string[] };
    renderError?: (context: { type: string; body: unknown }, out: Record<string, string>, error: Error) => void | Promise<void>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    readonly issuer: string;
    Grant: { new (props: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    /** A Koa middleware around the provider's own (only what the tests read and set of its context). */
    use(middleware: (context: { method: string; path: string; status: number; body: unknown }, next: () => Promise<void>) => Promise<void>): this;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
}
