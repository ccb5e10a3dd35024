/// <reference lib="dom" />
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { findChromium, launchChromium, npmChromium } from "../helpers/chromium.js";

// The Chromium that `npm install` brings (@sparticuz/chromium) runs here whatever the machine has
// installed, so `npm install && npm test` needs no system browser (DESIGN 1).
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(
      `<!doctype html><title>probe</title><p id="out"></p><script>document.getElementById("out").textContent = String(6 * 7) + " " + navigator.userAgent;</script>`,
    );
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((done) => server.close(() => done())));

it("unpacks the npm-shipped Chromium and renders a page with scripts in it", async () => {
  const choice = npmChromium();
  expect(choice.source).toBe("npm");
  expect(choice.executablePath).toMatch(/node_modules\/\.cache\/stablegate-chromium-[\d.]+\/chromium$/);
  const browser = await launchChromium(choice);
  try {
    const page = await browser.newPage();
    await page.goto(base);
    await expect.poll(() => page.locator("#out").innerText()).toMatch(/^42 .*HeadlessChrome\/\d+/);
  } finally {
    await browser.close();
  }
}, 120_000);

it("TEST_CHROMIUM=npm makes every browser test use it, even when CHROMIUM_PATH is set", () => {
  const saved = { mode: process.env.TEST_CHROMIUM, path: process.env.CHROMIUM_PATH };
  try {
    process.env.TEST_CHROMIUM = "npm";
    process.env.CHROMIUM_PATH = "/nonexistent/chromium";
    expect(findChromium().source).toBe("npm");
    delete process.env.TEST_CHROMIUM;
    expect(() => findChromium()).toThrow(/CHROMIUM_PATH=\/nonexistent\/chromium is not an executable/);
  } finally {
    for (const [key, value] of [
      ["TEST_CHROMIUM", saved.mode],
      ["CHROMIUM_PATH", saved.path],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
});
