/** Placeholder-free until the session API lands: signing out needs the signOut mutation. */
export function SignOutButton() {
  return null;
}
