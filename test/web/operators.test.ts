/// <reference lib="dom" />
import type { Browser, Dialog, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { createTestApp, listenLocal, type TestApp } from "../helpers/app.js";
import { launchChromium, openWatchedPage } from "../helpers/chromium.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { OPERATOR_PASSWORD, totpAt } from "../helpers/operators.js";

// Operators, Security (2FA with its QR code, recovery codes, sessions) and Audit pages in a real
// Chromium against the real app; TOTP codes come from the test's clock.
let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  await ensureWebBuild();
  t = await createTestApp();
  t.clock.set(new Date());
  base = await listenLocal(t.app);
  browser = await launchChromium();
  ({ page } = await openWatchedPage(browser, problems));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const text = (testId: string) => page.getByTestId(testId).innerText();

async function login(fields: { email?: string; password: string; totp?: string }) {
  await page.goto(`${base}/admin`);
  await page.getByTestId("email").fill(fields.email ?? "");
  await page.getByTestId("password").fill(fields.password);
  await page.getByTestId("totp").fill(fields.totp ?? "");
  await page.getByTestId("login").click();
}

describe("operator pages", () => {
  let secret = "";
  let invitationUrl = "";

  it("lets the owner create a viewer with a password and an admin by invitation", async () => {
    await login({ password: TEST_ADMIN_PASSWORD });
    await expect.poll(() => text("who")).toBe("Owner");
    await page.getByTestId("nav-operators").click();
    await page.getByTestId("new-operator-email").fill("vera@web.example");
    await page.getByTestId("new-operator-name").fill("Vera");
    await page.getByTestId("new-operator-role").selectOption("viewer");
    await page.getByTestId("new-operator-password").fill(OPERATOR_PASSWORD);
    await page.getByTestId("create-operator").click();
    await expect
      .poll(() => page.locator('[data-testid="operator-row"][data-email="vera@web.example"]').count())
      .toBe(1);
    await page.getByTestId("new-operator-email").fill("adam@web.example");
    await page.getByTestId("new-operator-name").fill("Adam");
    await page.getByTestId("new-operator-role").selectOption("admin");
    await page.getByTestId("create-operator").click();
    await expect.poll(() => page.getByTestId("invitation-url").count()).toBe(1);
    invitationUrl = await text("invitation-url");
    expect(invitationUrl).toMatch(/\/admin\/invitation#token=/);
  });

  it("enrols the owner's 2FA from the QR code page and shows ten recovery codes once", async () => {
    await page.getByTestId("nav-security").click();
    // A stolen cookie alone cannot add an authenticator: the current password is asked.
    await page.getByTestId("totp-password").fill("not the owner's password");
    await page.getByTestId("totp-start").click();
    await expect.poll(() => page.getByTestId("totp-error").innerText()).toContain("INVALID_PASSWORD");
    await page.getByTestId("totp-password").fill(TEST_ADMIN_PASSWORD);
    await page.getByTestId("totp-start").click();
    await expect.poll(() => page.getByTestId("totp-qr").count()).toBe(1);
    const qr = await page.getByTestId("totp-qr").getAttribute("src");
    expect(qr).toMatch(/^data:image\/svg\+xml/);
    secret = await text("totp-secret");
    await page.getByTestId("totp-confirm-code").fill(totpAt(secret, t.clock.now()));
    await page.getByTestId("totp-confirm").click();
    await expect.poll(() => page.getByTestId("recovery-codes").locator("li").count()).toBe(10);
    await page.getByTestId("recovery-codes-done").click();
    await expect.poll(() => text("totp-state")).toMatch(/^On \(10 recovery codes left\)/);
    await expect.poll(() => page.getByTestId("session-row").count()).toBeGreaterThan(0);
  });

  it("shows the changes on the Audit page with filters", async () => {
    await page.getByTestId("nav-audit").click();
    await page.getByTestId("audit-action").fill("operator.");
    await page.getByTestId("audit-filter").click();
    await expect
      .poll(async () => {
        const shown = await page.getByTestId("audit").innerText();
        return shown.includes("Operator two-factor enable") && !shown.includes("Auth login");
      })
      .toBe(true);
    const body = await page.getByTestId("audit").innerText();
    expect(body).toContain("Operator create");
    expect(body).not.toContain("Auth login");
    expect(await page.locator('[data-action="operator.create"]').count()).toBeGreaterThan(0);
    expect(body).not.toContain(OPERATOR_PASSWORD);
  });

  it("hides what a viewer may not do, and the server refuses it anyway", async () => {
    await page.getByTestId("logout").click();
    await login({ email: "vera@web.example", password: OPERATOR_PASSWORD });
    await expect.poll(() => text("who")).toBe("vera@web.example · Viewer");
    expect(await page.getByTestId("nav-operators").count()).toBe(0);
    await page.getByTestId("nav-merchants").click();
    await expect.poll(() => page.getByRole("heading", { name: "Merchants" }).count()).toBe(1);
    expect(await page.getByTestId("create-merchant").count()).toBe(0);
    const refused = await page.evaluate(async () => {
      const res = await fetch("/api/v1/admin/merchants", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Sneaky", webhook_secret: "whsec-sneaky-0123" }),
      });
      return { status: res.status, body: (await res.json()) as { code: string } };
    });
    expect(refused).toEqual({ status: 403, body: expect.objectContaining({ code: "ADMIN_FORBIDDEN" }) });
  });

  it("asks the owner for the authenticator code at sign-in", async () => {
    await page.getByTestId("logout").click();
    await login({ password: TEST_ADMIN_PASSWORD });
    await expect.poll(() => text("login-error")).toMatch(/Enter the code from your authenticator app/);
    t.clock.advanceSeconds(30);
    await page.getByTestId("totp").fill(totpAt(secret, t.clock.now()));
    await page.getByTestId("login").click();
    await expect.poll(() => text("who")).toBe("Owner");
  });

  it("asks an enrolled operator for a fresh code before rotating a key, and a wrong one changes nothing", async () => {
    const created = await page.evaluate(async () => {
      const res = await fetch("/api/v1/admin/merchants", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Step Up Shop", webhook_secret: "whsec-step-up-0123" }),
      });
      return (await res.json()) as { api_key: string };
    });
    const keyWorks = async (key: string) =>
      (await t.app.inject({ method: "GET", url: "/api/v1/merchant/me", headers: { "x-api-key": key } }))
        .statusCode;
    expect(await keyWorks(created.api_key)).toBe(200);
    await page.getByTestId("nav-merchants").click();
    const row = page.getByTestId("merchant-Step Up Shop");
    await expect.poll(() => row.count()).toBe(1);

    // The sign-in just used this step's code: a new step, and first a wrong code.
    t.clock.advanceSeconds(30);
    const right = totpAt(secret, t.clock.now());
    const prompts: string[] = [];
    const answer = (code: string) => (dialog: Dialog) => {
      prompts.push(`${dialog.type()}: ${dialog.message()}`);
      void (dialog.type() === "prompt" ? dialog.accept(code) : dialog.accept());
    };
    const wrongAnswer = answer(right === "000000" ? "111111" : "000000");
    page.on("dialog", wrongAnswer);
    await row.getByTestId("rotate-key").click();
    await expect.poll(() => page.getByTestId("merchant-action-error").count()).toBe(1);
    expect(await text("merchant-action-error")).toContain("(TOTP_INVALID)");
    page.off("dialog", wrongAnswer);
    expect(prompts.some((p) => p.startsWith("prompt: Rotate the API key: enter a fresh code"))).toBe(true);
    expect(await keyWorks(created.api_key)).toBe(200);

    const rightAnswer = answer(right);
    page.on("dialog", rightAnswer);
    await row.getByTestId("rotate-key").click();
    await expect.poll(() => page.getByTestId("new-api-key").count()).toBe(1);
    page.off("dialog", rightAnswer);
    const rotated = await text("new-api-key");
    expect(rotated).not.toBe(created.api_key);
    expect(await keyWorks(created.api_key)).toBe(401);
    expect(await keyWorks(rotated)).toBe(200);
  });

  it("sets an invited operator's password on the invitation page", async () => {
    await page.getByTestId("logout").click();
    await page.goto(invitationUrl.replace(/^https?:\/\/[^/]+/, base));
    await page.getByTestId("invitation-password").fill("adam's own long password");
    await page.getByTestId("accept-invitation").click();
    await expect
      .poll(() => text("invitation-message"))
      .toBe("Password set for adam@web.example. You can log in now.");
    await login({ email: "adam@web.example", password: "adam's own long password" });
    await expect.poll(() => text("who")).toBe("adam@web.example · Admin");
    expect(problems).toEqual([]);
  });
});
