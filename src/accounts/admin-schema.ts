import { listLimits } from '../limits.ts';
import { adminAccount, listAccountsForAdmin, removeAccount, requireAdmin, setAccountRole, type AdminAccount } from './account-admin.ts';
import { createAccount } from './accounts.ts';
import { setPassword } from './passwords.ts';
import { createSetupLink, setupLinkUrl } from './setup-links.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { builder } from '../graphql/builder.ts';
import { AccountRoleEnum, storedRole } from './account-security-schema.ts';
import { listPage, pageDescriptions, pagedComplexity } from '../graphql/pages.ts';
import { nameTakenAsInput, requireSession } from './session-guard.ts';

/**
 * Administration: accounts, their roles and passwords, invitation links. Every operation needs a
 * session (SESSION_REQUIRED with a token) of an administrator (FORBIDDEN otherwise), checked
 * against the stored role on each request.
 */

/** The signed-in administrator's session; throws SESSION_REQUIRED or FORBIDDEN. */
async function requireAdminSession(context: GraphQLContext) {
  const session = requireSession(context);
  await requireAdmin(session.accountId);
  return session;
}

const AdminAccountViewRef = builder.objectRef<AdminAccount>('AdminAccountView').implement({
  description: 'An account as administrators see it: never its secrets.',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    name: t.exposeString('name'),
    role: t.field({ type: AccountRoleEnum, resolve: (account) => storedRole(account.role) }),
    hasPassword: t.boolean({ resolve: (account) => account.passwordHash !== null }),
    ssoLinked: t.boolean({ resolve: (account) => account.oidcSubject !== null }),
    createdAt: t.field({ type: 'DateTime', resolve: (account) => account.createdAt }),
    sessionCount: t.exposeInt('sessionCount'),
  }),
});

const SetupLinkRef = builder.objectRef<{ url: string; expiresAt: Date }>('SetupLink').implement({
  description: 'A one-time link that creates an account; shown once (only a digest of its code is stored).',
  fields: (t) => ({
    url: t.exposeString('url', { description: '<public origin>/setup#code=<code>' }),
    expiresAt: t.field({ type: 'DateTime', resolve: (link) => link.expiresAt }),
  }),
});

const CreateAccountInput = builder.inputType('CreateAccountInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Letters, digits and . _ - @, at most 64 characters.' }),
    password: t.string({ required: true, description: '8–200 characters.' }),
    timezone: t.string({ required: false, description: 'IANA time zone (default UTC).' }),
    role: t.field({ type: AccountRoleEnum, required: false, description: 'USER when omitted.' }),
  }),
});

builder.queryField('accounts', (t) =>
  t.field({
    type: [AdminAccountViewRef],
    description: 'Administrators only: every account, oldest first.',
    args: { first: t.arg.int({ description: pageDescriptions(listLimits.adminAccounts, 'accounts').first }), offset: t.arg.int({ description: pageDescriptions(listLimits.adminAccounts, 'accounts').offset }) },
    complexity: pagedComplexity(listLimits.adminAccounts),
    resolve: async (_root, args, context) => {
      await requireAdminSession(context);
      return listAccountsForAdmin(listPage(args, listLimits.adminAccounts));
    },
  }),
);

builder.mutationField('createAccount', (t) =>
  t.field({
    type: AdminAccountViewRef,
    description: 'Administrators only: creates an account with a password.',
    args: { input: t.arg({ type: CreateAccountInput, required: true }) },
    resolve: async (_root, { input }, context) => {
      const { web } = await requireAdminSession(context);
      const account = await nameTakenAsInput(() =>
        createAccount({ name: input.name, password: input.password, timezone: input.timezone ?? undefined, role: input.role ?? 'user', address: web.clientAddress }),
      );
      return adminAccount(account.id);
    },
  }),
);

builder.mutationField('removeAccount', (t) =>
  t.boolean({
    description: 'Administrators only: removes an account and all its data. Not your own; never the last administrator.',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, { id }, context) => {
      const { accountId } = await requireAdminSession(context);
      await removeAccount({ actorId: accountId, id });
      return true;
    },
  }),
);

builder.mutationField('resetPassword', (t) =>
  t.boolean({
    description: "Administrators only: sets an account's password (8–200 characters) and ends all its sessions.",
    args: { id: t.arg.int({ required: true }), newPassword: t.arg.string({ required: true }) },
    resolve: async (_root, { id, newPassword }, context) => {
      const { web } = await requireAdminSession(context);
      await setPassword({ accountId: id, password: newPassword, address: web.clientAddress });
      return true;
    },
  }),
);

builder.mutationField('setAccountRole', (t) =>
  t.field({
    type: AdminAccountViewRef,
    description: 'Administrators only: makes an account an administrator or a user; the server always keeps one administrator.',
    args: { id: t.arg.int({ required: true }), role: t.arg({ type: AccountRoleEnum, required: true }) },
    resolve: async (_root, { id, role }, context) => {
      await requireAdminSession(context);
      await setAccountRole({ id, role });
      return adminAccount(id);
    },
  }),
);

builder.mutationField('createSetupLink', (t) =>
  t.field({
    type: SetupLinkRef,
    description: 'Administrators only: an invitation link (creates a user account), valid for one hour and one use.',
    resolve: async (_root, _args, context) => {
      const { accountId, web } = await requireAdminSession(context);
      const { code, expiresAt } = await createSetupLink({ purpose: 'invite', createdById: accountId });
      return { url: setupLinkUrl(web.origin, code), expiresAt };
    },
  }),
);
