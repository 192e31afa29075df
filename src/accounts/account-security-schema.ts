import { clearCookieHeader, endSessions } from './sessions.ts';
import { db } from '../db/client.ts';
import { NotFoundError, SessionRequiredError } from '../errors.ts';
import { listLimits, sessionTimes } from '../limits.ts';
import { changeOwnPassword } from './passwords.ts';
import { builder } from '../graphql/builder.ts';
import { requireSession, signInAs } from './session-guard.ts';

/**
 * The account's sign-in side, as the account page shows it: role, how it signs in, its sessions;
 * and what the signed-in person does with them (change the password, sign sessions out).
 */

export const AccountRoleEnum = builder.enumType('AccountRole', {
  values: {
    ADMIN: { value: 'admin', description: 'Manages accounts as well as its own library.' },
    USER: { value: 'user', description: 'Its own library and settings only.' },
  } as const,
});

/** A stored role as the enum's value; anything else (a hand-edited row) reads as `user`. */
export const storedRole = (role: string): 'admin' | 'user' => (role === 'admin' ? 'admin' : 'user');

builder.prismaObject('Session', {
  description: 'A signed-in browser of the account.',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    method: t.exposeString('method', { description: 'How it began: password, setup (a setup link) or oidc.' }),
    userAgent: t.exposeString('userAgent', { nullable: true }),
    address: t.exposeString('address', { nullable: true, description: 'The client address at sign-in.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', description: 'Updated at most once a minute.' }),
    expiresAt: t.field({
      type: 'DateTime',
      description: 'When it ends unless used again: 14 days after it was last seen, at most 30 days after it began.',
      resolve: (session) => new Date(Math.min(session.expiresAt.getTime(), session.lastSeenAt.getTime() + sessionTimes.idleMs)),
    }),
    current: t.boolean({
      description: 'The session of this request.',
      resolve: (session, _args, context) => session.id === context.web?.sessionId,
    }),
  }),
});

builder.prismaObjectFields('Account', (t) => ({
  role: t.field({ type: AccountRoleEnum, select: { role: true }, resolve: (account) => storedRole(account.role) }),
  hasPassword: t.boolean({ select: { passwordHash: true }, resolve: (account) => account.passwordHash !== null }),
  ssoLinked: t.boolean({ select: { oidcSubject: true }, resolve: (account) => account.oidcSubject !== null }),
  createdAt: t.expose('createdAt', { type: 'DateTime' }),
  sessions: t.prismaField({
    type: ['Session'],
    description: "The account's sessions, newest first (at most 100). Only with a session (SESSION_REQUIRED for an API token).",
    // Bounded by its `take`: the cost counts the selection once per session the list may hold.
    complexity: () => ({ field: 1, multiplier: listLimits.accountSessions.max }),
    resolve: (query, account, _args, context) => {
      if (context.web?.sessionAccountId !== account.id) throw new SessionRequiredError();
      return db().session.findMany({ ...query, where: { accountId: account.id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: listLimits.accountSessions.max });
    },
  }),
}));

builder.mutationField('changePassword', (t) =>
  t.boolean({
    description:
      'Session only. Sets a new password (8–200 characters); currentPassword is required when the account has one, and wrong ones are limited like sign-ins (RATE_LIMITED, 429). Ends every other session of the account; this browser stays signed in with a new session.',
    args: { currentPassword: t.arg.string({ required: false }), newPassword: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => {
      const { accountId, web } = requireSession(context);
      await changeOwnPassword({ accountId, currentPassword: args.currentPassword, newPassword: args.newPassword, address: web.clientAddress, limiter: web.signInLimiter });
      await signInAs(web, accountId, 'password');
      return true;
    },
  }),
);

builder.mutationField('signOutSession', (t) =>
  t.boolean({
    description: "Session only. Ends one of the account's own sessions (NOT_FOUND for any other id).",
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, { id }, context) => {
      const { accountId, sessionId, web } = requireSession(context);
      const { count } = await db().session.deleteMany({ where: { id, accountId } });
      if (count === 0) throw new NotFoundError(`no session ${id} of this account`);
      if (id === sessionId) web.setCookie(clearCookieHeader(web.request));
      return true;
    },
  }),
);

builder.mutationField('signOutEverywhere', (t) =>
  t.boolean({
    description: 'Session only. Ends every session of the account, this one too, and clears the cookie.',
    resolve: async (_root, _args, context) => {
      const { accountId, web } = requireSession(context);
      await endSessions({ accountId });
      web.setCookie(clearCookieHeader(web.request));
      return true;
    },
  }),
);
