import type { MailServer } from '../mail/mail-server.ts';
import { vapidKeys } from '../keys/vapid-keys.ts';
import type { LookupFunction } from '../webhooks/outbound-request.ts';
import type { TargetPolicy } from '../webhooks/target-policy.ts';
import type { SendContext, ServiceUrls } from './channels/channel.ts';

/** What channels are checked and sent with: the server's settings (app.ts builds it from the config). */
declare module '../graphql/context.ts' {
  interface GraphQLServices {
    channels: ChannelServices;
  }
}
declare module '../jobs/job-definition.ts' {
  interface JobServices {
    channels: ChannelServices;
  }
}

export interface ChannelServices {
  /** AIRDATE_WEBHOOK_ALLOWED_HOSTS: checked when a channel is added and by every send. */
  policy: TargetPolicy;
  /** AIRDATE_WEBHOOK_TIMEOUT_MS, for one attempt. */
  timeoutMs: number;
  /** AIRDATE_SMTP_URL, when the operator set one. */
  smtpDefault: MailServer | undefined;
  /** AIRDATE_PUBLIC_URL (or the address the server listens on): the links in messages. */
  publicOrigin: string;
  /** Resolver (tests); `dns.lookup` unless given. */
  lookup?: LookupFunction;
  /** The hosted services' addresses (tests point them at local receivers). */
  serviceUrls?: Partial<ServiceUrls>;
  /** Certificates trusted on top of the system's (tests with self-signed peers only). */
  trustedCertificates?: readonly string[];
}

/** The context of one send, under the delivery's idempotency key. */
export function sendContext(services: ChannelServices, props: { idempotencyKey: string; now?: () => Date }): SendContext {
  return {
    policy: services.policy,
    timeoutMs: services.timeoutMs,
    idempotencyKey: props.idempotencyKey,
    smtpDefault: services.smtpDefault,
    publicOrigin: services.publicOrigin,
    vapid: vapidKeys(),
    now: props.now ?? (() => new Date()),
    lookup: services.lookup,
    serviceUrls: services.serviceUrls,
    trustedCertificates: services.trustedCertificates,
  };
}
