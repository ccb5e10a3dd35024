// Drives a running production api over HTTP (no dependencies: plain Node): admin login, a merchant,
// an order created and read back with the merchant's key, the checkout page and /metrics with the
// bearer token. Exits non-zero with a message on the first mismatch.
import console from "node:console";
import process from "node:process";
const base = process.argv[2];
const password = process.env.ADMIN_PASSWORD;
const metricsToken = process.env.METRICS_TOKEN;

function check(condition, message) {
  if (!condition) {
    console.error(`production smoke: ${message}`);
    process.exit(1);
  }
}

async function call(path, init = {}) {
  const response = await globalThis.fetch(`${base}${path}`, init);
  const text = await response.text();
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (metrics, pages)
  }
  return { status: response.status, headers: response.headers, body };
}

const json = (body, headers = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

const login = await call("/api/v1/admin/auth/login", json({ password }));
check(login.status === 200, `admin login answered ${login.status}`);
const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];

const merchant = await call(
  "/api/v1/admin/merchants",
  json({ name: "Production check", webhook_secret: "whsec_production_check_0123456789" }, { cookie }),
);
check(merchant.status === 201, `merchant creation answered ${merchant.status}`);
const apiKey = merchant.body.api_key;

const created = await call(
  "/api/v1/payments",
  json(
    {
      external_id: "prod-check-1",
      amount: "12.5",
      currency: "USDT",
      callback_url: "https://merchant.example.com/hook",
    },
    { "x-api-key": apiKey },
  ),
);
check(created.status === 201, `order creation answered ${created.status} ${JSON.stringify(created.body)}`);
check(/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(created.body.address), "order has no TRON address");

const read = await call(`/api/v1/payments/${created.body.id}`, { headers: { "x-api-key": apiKey } });
check(read.status === 200, `order read answered ${read.status}`);
check(read.body.amount_expected === "12.500000" && read.body.status === "pending", "order read back differs");

const page = await call(`/checkout/${created.body.id}`);
check(page.status === 200 && String(page.body).includes("<div id="), "checkout page not served from dist");

const closed = await call("/metrics");
check(closed.status === 401, `/metrics without the token answered ${closed.status}`);
const metrics = await call("/metrics", { headers: { authorization: `Bearer ${metricsToken}` } });
check(metrics.status === 200, `/metrics answered ${metrics.status}`);
check(/^stablegate_orders_created_total 1$/m.test(metrics.body), "stablegate_orders_created_total is not 1");
check(/^stablegate_info\{role="api"\} 1$/m.test(metrics.body), "stablegate_info{role=api} missing");

console.log(`order ${created.body.id} created and read back on the compiled api`);
