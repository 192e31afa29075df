import type { AuthenticatedAccount } from '../services/tokens.ts';
import type { CatalogService } from '../services/catalog.ts';
import type { JobQueue } from '../jobs/scheduler.ts';
import type { WebhookTarget } from '../services/test-notification.ts';

/** What every GraphQL operation runs with; the edge (HTTP or REST facade) authenticates first. */
export interface GraphQLContext {
  account: AuthenticatedAccount;
  services: { catalog: CatalogService; jobs: JobQueue; webhooks: WebhookTarget };
  /** Where writes come from, for the watch history: `api` (REST) or `graphql`. */
  source: 'api' | 'graphql';
}
