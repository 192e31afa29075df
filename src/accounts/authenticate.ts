import { inputLengths } from '../limits.ts';
import type { AuthenticatedAccount } from '../graphql/context.ts';
import { authenticateToken } from './tokens.ts';
import { exceedsLength } from '../value-bounds.ts';
import { HttpError } from '../http/responses.ts';

/** Where an endpoint accepts the token from (machine-api.md §5, decisions.md "Paths"). */
export type TokenPlacement = 'header-or-query' | 'header-only';

/**
 * Finds and checks the request's API token. The header (`Authorization: Bearer …`) is always
 * accepted; `?token=` only where `placement` allows it. Any failure is a 401 HttpError. A token
 * longer than inputLengths.apiToken is refused as it stands, before any lookup (a well-formed one
 * has 42 characters; authenticateToken also refuses a malformed one without a query).
 */
export async function authenticateRequest(request: Request, url: URL, placement: TokenPlacement): Promise<AuthenticatedAccount> {
  return authenticateCredentials(request.headers.get('authorization'), url.searchParams.get('token'), placement);
}

/** authenticateRequest from the request's `Authorization` header and `?token=` (null: absent), as Node's request gives them too (src/early-answers.ts). */
export async function authenticateCredentials(header: string | null, queryToken: string | null, placement: TokenPlacement): Promise<AuthenticatedAccount> {
  let token: string | undefined;
  if (header !== null) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) throw new HttpError(401, 'the Authorization header must be "Bearer <API token>"');
    token = match[1];
  } else if (queryToken !== null) {
    if (placement === 'header-only') {
      throw new HttpError(401, 'this endpoint does not accept ?token=; send the token as "Authorization: Bearer <API token>"');
    }
    token = queryToken;
  }
  if (!token) throw new HttpError(401, 'missing API token; send "Authorization: Bearer <API token>"');
  if (exceedsLength(token, inputLengths.apiToken)) throw new HttpError(401, `invalid API token (longer than ${inputLengths.apiToken} characters)`);
  const account = await authenticateToken(token);
  if (!account) throw new HttpError(401, 'invalid API token');
  return account;
}
