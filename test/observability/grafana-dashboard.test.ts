import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/database.ts';
import { call } from '../support/http.ts';

const token = 'metrics-token-0123456789abcdef';
const { app } = await useTestApp({ AIRDATE_METRICS_TOKEN: token });
const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as {
  uid: string;
  title: string;
  schemaVersion: number;
  templating: { list: { name: string }[] };
  panels: { id: number; type: string; title: string; gridPos: Record<string, number>; targets: { refId: string; expr: string }[] }[];
};

/** Metric names a PromQL expression reads (the series selectors; functions and labels left out). */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\b((?:airdate|process|nodejs)_[a-z0-9_]+)\b/g)].map((match) => match[1]!);
}

/** What /metrics declares: each `# TYPE name kind`. */
async function declaredMetrics(): Promise<Map<string, string>> {
  const text = (await call(app, 'GET', '/metrics', { token })).text;
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => [match[1]!, match[2]!]));
}

/** Whether `name` is a series /metrics exposes: a metric, or a histogram's bucket, sum or count. */
function exposed(declared: Map<string, string>, name: string): boolean {
  if (declared.has(name)) return true;
  const histogram = /^(.*)_(bucket|sum|count)$/.exec(name);
  return histogram !== null && declared.get(histogram[1]!) === 'histogram';
}

describe('docs/grafana-dashboard.json', () => {
  it('is a dashboard model: uid, title, a Prometheus data source variable, panels with unique ids and queries', () => {
    expect(dashboard).toMatchObject({ uid: 'airdate-overview', title: 'Airdate', schemaVersion: expect.any(Number) });
    expect(dashboard.templating.list.map((variable) => variable.name)).toEqual(['datasource', 'job']);
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
    expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      expect(Object.keys(panel.gridPos).sort()).toEqual(['h', 'w', 'x', 'y']);
    }
  });

  it('reads only metrics /metrics exposes, and shows every airdate_ metric', async () => {
    const declared = await declaredMetrics();
    const used = new Set(dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricNames(target.expr))));
    expect(used.size).toBeGreaterThan(10);
    for (const name of used) expect(exposed(declared, name), name).toBe(true);
    const shown = new Set([...used].map((name) => name.replace(/_(bucket|sum|count)$/, '')));
    for (const name of declared.keys()) if (name.startsWith('airdate_')) expect(shown.has(name), `${name} is on no panel`).toBe(true);
  });
});
