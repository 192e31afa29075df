import { useState } from 'preact/hooks';
import { request } from '../client.ts';
import { ConfirmButton, CopyField, formatTime, Notice, PageTitle, useAction, useLoad } from '../components.tsx';
import { graphql, type ResultOf } from '../graphql.ts';
import { useSession } from '../session.ts';

const AccountsQuery = graphql(`
  query Accounts {
    accounts(first: 500) {
      databaseId
      name
      role
      hasPassword
      ssoLinked
      createdAt
      sessionCount
    }
  }
`);

const CreateAccount = graphql(`
  mutation CreateAccount($input: CreateAccountInput!) {
    createAccount(input: $input) {
      databaseId
    }
  }
`);
const RemoveAccount = graphql(`
  mutation RemoveAccount($id: Int!) {
    removeAccount(id: $id)
  }
`);
const ResetPassword = graphql(`
  mutation ResetPassword($id: Int!, $newPassword: String!) {
    resetPassword(id: $id, newPassword: $newPassword)
  }
`);
const SetRole = graphql(`
  mutation SetRole($id: Int!, $role: AccountRole!) {
    setAccountRole(id: $id, role: $role) {
      databaseId
    }
  }
`);
const CreateSetupLink = graphql(`
  mutation CreateSetupLink {
    createSetupLink {
      url
      expiresAt
    }
  }
`);

type AdminAccount = ResultOf<typeof AccountsQuery>['accounts'][number];
type Role = 'ADMIN' | 'USER';
const loadAccounts = async () => (await request(AccountsQuery)).accounts;

/** Administration: every account, creating and removing them, passwords, roles and invitation links. */
export default function AdminPage() {
  const { data: accounts, error, reload } = useLoad(loadAccounts);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('USER');
  const [link, setLink] = useState<{ url: string; expiresAt: string } | null>(null);
  const create = useAction(async () => {
    await request(CreateAccount, { input: { name: name.trim(), password, role, timezone: Intl.DateTimeFormat().resolvedOptions().timeZone } });
    setName('');
    setPassword('');
    reload();
    return `Account ${name.trim()} created.`;
  });
  const invite = useAction(async () => {
    setLink((await request(CreateSetupLink)).createSetupLink);
    return 'Invitation link made: send it to the person; it works once, for one hour.';
  });

  return (
    <section>
      <PageTitle>Administration</PageTitle>
      <section class="card" aria-labelledby="accounts-heading">
        <h2 id="accounts-heading">Accounts</h2>
        {error && <p role="alert">{error}</p>}
        {accounts && (
          <ul class="accounts">
            {accounts.map((account) => (
              <AccountRow key={account.databaseId} account={account} reload={reload} />
            ))}
          </ul>
        )}
      </section>
      <section class="card" aria-labelledby="create-heading">
        <h2 id="create-heading">Create an account</h2>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void create.run();
          }}
        >
          <div class="field">
            <label for="new-name">Name</label>
            <input id="new-name" autocomplete="off" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="new-account-password">Password</label>
            <input id="new-account-password" type="password" autocomplete="new-password" required minLength={8} value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="new-role">Role</label>
            <select id="new-role" value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
              <option value="USER">User</option>
              <option value="ADMIN">Administrator</option>
            </select>
          </div>
          <button class="primary" disabled={create.busy}>
            Create account
          </button>
        </form>
        <Notice outcome={create.outcome} />
      </section>
      <section class="card" aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite someone</h2>
        <p class="hint">The person opens the link and chooses their own name and password.</p>
        <button type="button" disabled={invite.busy} onClick={() => void invite.run()}>
          Create setup link
        </button>
        <Notice outcome={invite.outcome} />
        {link && <CopyField id="setup-link" label={`Setup link (until ${formatTime(link.expiresAt)})`} value={link.url} />}
      </section>
    </section>
  );
}

function AccountRow({ account, reload }: { account: AdminAccount; reload: () => void }) {
  const { viewer } = useSession();
  const [newPassword, setNewPassword] = useState('');
  const self = viewer?.databaseId === account.databaseId;
  const action = useAction(async (work: () => Promise<string>) => work());
  const remove = () => action.run(async () => (await request(RemoveAccount, { id: account.databaseId }), reload(), `${account.name} removed.`));
  const reset = () => action.run(async () => (await request(ResetPassword, { id: account.databaseId, newPassword }), setNewPassword(''), reload(), `New password set for ${account.name}; their sessions ended.`));
  const toggleRole = () =>
    action.run(async () => {
      const role: Role = account.role === 'ADMIN' ? 'USER' : 'ADMIN';
      await request(SetRole, { id: account.databaseId, role });
      reload();
      return `${account.name} is now ${role === 'ADMIN' ? 'an administrator' : 'a user'}.`;
    });
  const inputId = `reset-${account.databaseId}`;
  return (
    <li class="account">
      <p>
        <strong>{account.name}</strong> {account.role === 'ADMIN' ? '(administrator)' : ''}
        {self ? ' — you' : ''}
        <br />
        <span class="hint">
          Since {formatTime(account.createdAt)}; {account.hasPassword ? 'password' : 'no password'}
          {account.ssoLinked ? ', single sign-on' : ''}; {account.sessionCount} signed-in browser(s)
        </span>
      </p>
      <form
        class="copy-row"
        onSubmit={(event) => {
          event.preventDefault();
          void reset();
        }}
      >
        <label for={inputId} class="visually-hidden">
          New password for {account.name}
        </label>
        <input id={inputId} type="password" autocomplete="new-password" placeholder="New password" required minLength={8} value={newPassword} onInput={(event) => setNewPassword(event.currentTarget.value)} />
        <button disabled={action.busy}>
          Reset password<span class="visually-hidden"> of {account.name}</span>
        </button>
      </form>
      <div class="actions">
        <button type="button" disabled={action.busy || self} onClick={() => void toggleRole()}>
          {account.role === 'ADMIN' ? 'Make user' : 'Make administrator'}
          <span class="visually-hidden"> {account.name}</span>
        </button>
        <ConfirmButton label={`Remove ${account.name}`} question={`Remove ${account.name}?`} confirm="Remove" danger disabled={action.busy || self} onConfirm={() => void remove()}>
          <p>The account and everything it holds are deleted. This cannot be undone.</p>
        </ConfirmButton>
      </div>
      <Notice outcome={action.outcome} />
    </li>
  );
}
