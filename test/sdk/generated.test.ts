import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { OPENAPI_FILE, TYPES_FILE, renderFiles } from "../../scripts/generate-openapi.js";

// docs/openapi.json (linted by `npm run lint`) and the SDK's generated types must be what the app
// serves today: `npm run generate:openapi` after changing a route's schema.
it("docs/openapi.json and packages/sdk/src/api-types.ts are up to date with the app's document", async () => {
  const { openapi, types } = await renderFiles();
  expect(
    readFileSync(OPENAPI_FILE, "utf8") === openapi,
    "docs/openapi.json is stale: npm run generate:openapi",
  ).toBe(true);
  expect(
    readFileSync(TYPES_FILE, "utf8") === types,
    "packages/sdk/src/api-types.ts is stale: npm run generate:openapi",
  ).toBe(true);
  const doc = JSON.parse(openapi);
  expect(doc.openapi).toBe("3.1.0");
  expect(Object.keys(doc.webhooks)).toEqual([
    "payment.confirmed",
    "payment.underpaid",
    "payment.overpaid",
    "deposit.detected",
    "deposit.confirmed",
    "refund.completed",
    "refund.failed",
    "payout.completed",
    "payout.failed",
  ]);
  expect(doc.components.securitySchemes).toMatchObject({
    apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
    adminCookie: { type: "apiKey", in: "cookie", name: "admin_token" },
  });
}, 120_000);
