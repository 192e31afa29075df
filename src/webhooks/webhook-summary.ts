/**
 * A signed webhook's destination for lists, without what its path may hold (Home Assistant's
 * webhook id is the only key to it): the origin, and "/…" when there is a path.
 */
export function describeWebhookUrl(url: string): string {
  const parsed = new URL(url);
  return `Signed webhook to ${parsed.origin}${parsed.pathname === '/' && parsed.search === '' ? '' : '/…'}`;
}
