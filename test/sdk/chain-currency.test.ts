/**
 * `chain` and `currency` in the API document and the SDK (DESIGN.md 16): every schema of an order
 * (creation body, replies, the outcome webhooks, the checkout status, the admin reads) lists both
 * enums, and the SDK's types narrow to them, so a merchant's compiler knows the chains.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import type {
  Chain,
  CheckoutStatus,
  CreatePaymentParams,
  Currency,
  Payment,
  PaymentConfirmedEvent,
} from "@stablegate/sdk";
import type { WebhookPayload } from "@stablegate/sdk/webhook-payload";
import { CHAIN_IDS, CURRENCIES } from "../../src/chains/chain-types.js";

const doc = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../docs/openapi.json"), "utf8"));

type Schema = { properties?: Record<string, { enum?: string[] }>; [k: string]: unknown };

function json(op: { content?: Record<string, { schema: Schema }> } | undefined): Schema {
  const schema = op?.content?.["application/json"]?.schema;
  if (!schema) throw new Error("no JSON schema");
  return schema;
}

const ORDER_SCHEMAS: [string, () => Schema][] = [
  ["POST /payments body", () => json(doc.paths["/api/v1/payments"].post.requestBody)],
  ["POST /payments 201", () => json(doc.paths["/api/v1/payments"].post.responses["201"])],
  ["GET /payments/{id}", () => json(doc.paths["/api/v1/payments/{id}"].get.responses["200"])],
  ["GET /checkout/{id}/status", () => json(doc.paths["/api/v1/checkout/{id}/status"].get.responses["200"])],
  [
    "GET /admin/orders item",
    () => json(doc.paths["/api/v1/admin/orders"].get.responses["200"]).properties!.data as unknown as Schema,
  ],
  [
    "GET /admin/orders/{id} order",
    () => json(doc.paths["/api/v1/admin/orders/{id}"].get.responses["200"]).properties!.order as Schema,
  ],
  ["payment.confirmed webhook", () => json(doc.webhooks["payment.confirmed"].post.requestBody)],
  ["payment.underpaid webhook", () => json(doc.webhooks["payment.underpaid"].post.requestBody)],
];

describe("chain and currency in the OpenAPI document", () => {
  it.each(ORDER_SCHEMAS)("%s lists both enums", (_name, read) => {
    let schema = read();
    if ((schema as { items?: Schema }).items) schema = (schema as { items: Schema }).items;
    expect(schema.properties?.chain?.enum).toEqual([...CHAIN_IDS]);
    expect(schema.properties?.currency?.enum).toEqual([...CURRENCIES]);
  });

  it("lists the admin order filters' enums as query parameters", () => {
    const params = doc.paths["/api/v1/admin/orders"].get.parameters as {
      name: string;
      schema: { enum?: string[] };
    }[];
    expect(params.find((p) => p.name === "chain")?.schema.enum).toEqual([...CHAIN_IDS]);
    expect(params.find((p) => p.name === "currency")?.schema.enum).toEqual([...CURRENCIES]);
  });
});

describe("the SDK's types", () => {
  // Checked by the compiler (npm run typecheck compiles the tests).
  it("narrow chain and currency to the enums", () => {
    expectTypeOf<Chain>().toEqualTypeOf<(typeof CHAIN_IDS)[number]>();
    expectTypeOf<Currency>().toEqualTypeOf<(typeof CURRENCIES)[number]>();
    expectTypeOf<Payment["chain"]>().toEqualTypeOf<Chain>();
    expectTypeOf<NonNullable<CreatePaymentParams["chain"]>>().toEqualTypeOf<Chain>();
    expectTypeOf<CreatePaymentParams["currency"]>().toEqualTypeOf<Currency>();
    expectTypeOf<PaymentConfirmedEvent["chain"]>().toEqualTypeOf<Chain>();
    expectTypeOf<WebhookPayload["chain"]>().toEqualTypeOf<Chain>();
    expectTypeOf<WebhookPayload["currency"]>().toEqualTypeOf<Currency>();
    expectTypeOf<CheckoutStatus["payment_uri"]>().toEqualTypeOf<string | null>();
  });
});
