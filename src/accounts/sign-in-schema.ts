import { trustedDevice } from './device-cookie.ts';
import { clearCookieHeader, endSession } from './sessions.ts';
import { db } from '../db/client.ts';
import { ForbiddenError } from '../errors.ts';
import { createAccount } from './accounts.ts';
import { signInWithPassword } from './passwords.ts';
import { redeemSetupLink, setupRequired, usableSetupLink } from './setup-links.ts';
import { builder } from '../graphql/builder.ts';
import { nameTakenAsInput, signInAs, webContext } from './session-guard.ts';

/**
 * The public operations of the web app: what the sign-in page needs to know, signing in, signing
 * up (when open), first-run setup and invitations, signing out. Anonymous requests may run these
 * and nothing else (src/graphql/graphql-access.ts).
 */

const SsoInfoRef = builder.objectRef<{ label: string; startUrl: string }>('SsoInfo').implement({
  description: 'Single sign-on (OpenID Connect), when the server is configured for it.',
  fields: (t) => ({
    label: t.exposeString('label', { description: 'The button text (AIRDATE_OIDC_LABEL).' }),
    startUrl: t.exposeString('startUrl', { description: 'Where the button goes: /auth/oidc/start.' }),
  }),
});

interface AuthInfoShape {
  signedIn: boolean;
  setupRequired: boolean;
  signUpOpen: boolean;
  sso: { label: string; startUrl: string } | null;
}

const AuthInfoRef = builder.objectRef<AuthInfoShape>('AuthInfo').implement({
  description: 'What the sign-in page shows.',
  fields: (t) => ({
    signedIn: t.exposeBoolean('signedIn', { description: 'The request carries a valid session (or API token).' }),
    setupRequired: t.exposeBoolean('setupRequired', { description: 'No account exists yet: the first one is made through the setup link the server printed.' }),
    signUpOpen: t.exposeBoolean('signUpOpen', { description: 'Anyone may create an account (AIRDATE_OPEN_SIGNUP), once the administrator exists.' }),
    sso: t.field({ type: SsoInfoRef, nullable: true, resolve: (info) => info.sso }),
  }),
});

export const SetupLinkPurposeEnum = builder.enumType('SetupLinkPurpose', {
  values: {
    FIRST_ADMIN: { value: 'first-admin', description: 'Creates the first account, an administrator, while no account exists.' },
    INVITE: { value: 'invite', description: 'Creates a user account; made by an administrator.' },
  } as const,
});

const SetupLinkInfoRef = builder.objectRef<{ purpose: 'first-admin' | 'invite'; expiresAt: Date }>('SetupLinkInfo').implement({
  fields: (t) => ({
    purpose: t.field({ type: SetupLinkPurposeEnum, resolve: (info) => info.purpose }),
    expiresAt: t.field({ type: 'DateTime', resolve: (info) => info.expiresAt }),
  }),
});

builder.queryField('authInfo', (t) =>
  t.field({
    type: AuthInfoRef,
    description: 'Public: whether the request is signed in, and how one signs in or sets up this server.',
    resolve: async (_root, _args, context) => {
      const web = webContext(context);
      const firstRun = await setupRequired();
      const { oidc } = web.settings;
      return {
        signedIn: web.via !== 'anonymous',
        setupRequired: firstRun,
        signUpOpen: web.settings.openSignup && !firstRun,
        sso: oidc ? { label: oidc.label, startUrl: '/auth/oidc/start' } : null,
      };
    },
  }),
);

builder.queryField('setupLinkInfo', (t) =>
  t.field({
    type: SetupLinkInfoRef,
    nullable: true,
    description: 'Public: what a setup link makes, or null when it is unknown, used or expired.',
    args: { code: t.arg.string({ required: true }) },
    resolve: (_root, { code }) => usableSetupLink(code),
  }),
);

builder.mutationField('signIn', (t) =>
  t.prismaField({
    type: 'Account',
    description:
      'Public: signs in with name and password and sets the session cookie (and the device cookie that exempts this browser from the name\'s lockout). WRONG_CREDENTIALS (401) for a wrong name or password alike; RATE_LIMITED (429) after too many failures, or while this address has too many checks running; BUSY (503) while the server has too many.',
    args: { name: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: async (query, _root, { name, password }, context) => {
      const web = webContext(context);
      const device = trustedDevice(web.request);
      const account = await signInWithPassword({ name, password, address: web.clientAddress, device, limiter: web.signInLimiter });
      await signInAs(web, account.id, 'password');
      return db().account.findUniqueOrThrow({ ...query, where: { id: account.id } });
    },
  }),
);

builder.mutationField('signUp', (t) =>
  t.prismaField({
    type: 'Account',
    description: 'Public, only when AIRDATE_OPEN_SIGNUP is on (FORBIDDEN otherwise): creates a user account and signs in.',
    args: { name: t.arg.string({ required: true }), password: t.arg.string({ required: true }), timezone: t.arg.string({ required: false }) },
    resolve: async (query, _root, args, context) => {
      const web = webContext(context);
      if (!web.settings.openSignup) throw new ForbiddenError('sign-up is closed; ask an administrator for an invitation');
      if (await setupRequired()) throw new ForbiddenError('this server is not set up yet: use the setup link the server printed');
      const account = await nameTakenAsInput(() =>
        createAccount({ name: args.name, password: args.password, timezone: args.timezone ?? undefined, address: web.clientAddress }),
      );
      await signInAs(web, account.id, 'password');
      return db().account.findUniqueOrThrow({ ...query, where: { id: account.id } });
    },
  }),
);

builder.mutationField('completeSetup', (t) =>
  t.prismaField({
    type: 'Account',
    description: 'Public: uses a setup link (an administrator from a FIRST_ADMIN link, a user from an INVITE) and signs in.',
    args: {
      code: t.arg.string({ required: true }),
      name: t.arg.string({ required: true }),
      password: t.arg.string({ required: true }),
      timezone: t.arg.string({ required: false }),
    },
    resolve: async (query, _root, args, context) => {
      const web = webContext(context);
      const account = await nameTakenAsInput(() =>
        redeemSetupLink({ code: args.code, name: args.name, password: args.password, timezone: args.timezone ?? undefined, address: web.clientAddress }),
      );
      await signInAs(web, account.id, 'setup');
      return db().account.findUniqueOrThrow({ ...query, where: { id: account.id } });
    },
  }),
);

builder.mutationField('signOut', (t) =>
  t.boolean({
    description: "Public: ends this request's session (if any) and clears the cookie; true.",
    resolve: async (_root, _args, context) => {
      const web = webContext(context);
      if (web.via === 'session' && web.sessionId !== undefined) await endSession(web.sessionId);
      web.setCookie(clearCookieHeader(web.request));
      return true;
    },
  }),
);
