/**
 * The Grafana dashboard's metric names exist (a renamed metric breaks this test, not a dashboard in
 * production). That docs/metrics.md names every family a running service serves, and no other, is
 * checked against a real scrape in metrics-after-payment.test.ts.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../src/metrics/metrics.js";

const ROOT = resolve(import.meta.dirname, "../..");

describe("metric documentation", () => {
  const metrics = createMetrics();
  const names = metrics.registry.getMetricsAsArray().map((metric) => metric.name);
  it("builds its Grafana panels from metrics that exist", () => {
    const dashboard = JSON.parse(readFileSync(join(ROOT, "docs/grafana-dashboard.json"), "utf8")) as {
      panels: { targets: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
    expect(exprs.length).toBeGreaterThan(10);
    const referenced = new Set(
      exprs.flatMap((expr) => expr.match(/\b(?:stablegate|process|nodejs)_[a-z0-9_]+/g) ?? []),
    );
    for (const name of referenced) {
      const family = name.replace(/_(bucket|count|sum)$/, "");
      expect(names, name).toContain(family);
    }
  });
});
