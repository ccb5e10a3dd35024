/** Shared fixtures of the payments and admin-order tests. */
import type { Context } from "../../src/context.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import type { TestApp } from "../helpers/app.js";

export interface TestMerchant {
  id: string;
  name: string;
  apiKey: string;
}

let counter = 0;

export async function addMerchant(ctx: Context, name = `Shop ${++counter}`): Promise<TestMerchant> {
  const { merchant, apiKey } = await createMerchant(ctx, { name, webhookSecret: "whsec-test-secret" });
  return { id: merchant.id, name: merchant.name, apiKey };
}

export function orderBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_id: `ord-${++counter}`,
    amount: "10.5",
    currency: "USDT",
    callback_url: "https://merchant.example.com/hooks/stablegate",
    ...overrides,
  };
}

export async function postOrder(t: TestApp, apiKey: string, body: unknown) {
  return t.app.inject({
    method: "POST",
    url: "/api/v1/payments",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    payload: typeof body === "string" ? body : JSON.stringify(body),
  });
}
