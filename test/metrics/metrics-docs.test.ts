/**
 * docs/metrics.md lists every stablegate_* family the registry exports, and the Grafana dashboard and
 * the documented metric names exist in the registry (a renamed metric breaks this test, not a
 * dashboard in production).
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../src/metrics/metrics.js";

const ROOT = resolve(import.meta.dirname, "../..");

describe("metric documentation", () => {
  const metrics = createMetrics();
  const names = metrics.registry.getMetricsAsArray().map((metric) => metric.name);
  const families = names.filter((name) => name.startsWith("stablegate_"));
  const doc = readFileSync(join(ROOT, "docs/metrics.md"), "utf8");

  it("lists every stablegate_* family in the table, and documents none that does not exist", () => {
    expect(families.length).toBeGreaterThanOrEqual(20);
    const documented = [...doc.matchAll(/^\| `(stablegate_[a-z_]+)` +\|/gm)].map((m) => m[1]);
    for (const name of families) expect(documented, name).toContain(name);
    for (const name of documented) expect(families, name).toContain(name);
  });

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
