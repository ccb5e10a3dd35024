/**
 * The operator-alert channels (DESIGN.md 2): a signed JSON webhook (Slack-compatible through
 * `text`) and a Telegram chat through the Bot API's sendMessage. Sending is one HTTP POST with a
 * timeout; the bot token travels only in the request path and never into an error, log or row.
 */
import { request } from "undici";
import type { Config } from "../config.js";
import { signWebhookBody } from "../webhooks/signature.js";

export type AlertChannel = "webhook" | "telegram";

export const ALERT_TIMEOUT_MS = 10_000;
const USER_AGENT = "Stablegate-Alerts/1.0";

export function alertChannels(config: Config): AlertChannel[] {
  const out: AlertChannel[] = [];
  if (config.alerts.webhookUrl) out.push("webhook");
  if (config.alerts.telegramBotToken && config.alerts.telegramChatId) out.push("telegram");
  return out;
}

export interface SendResult {
  ok: boolean;
  /** A short reason when not ok (never a URL, token or body). */
  error?: string;
}

export async function sendAlert(
  config: Config,
  channel: AlertChannel,
  body: string,
  /** when it is sent (the clock's now): the webhook's x-timestamp */
  at: Date,
  timeoutMs = ALERT_TIMEOUT_MS,
): Promise<SendResult> {
  const { alerts } = config;
  if (channel === "webhook") {
    if (!alerts.webhookUrl) return { ok: false, error: "ALERT_WEBHOOK_URL is not set" };
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      "x-timestamp": String(Math.floor(at.getTime() / 1000)),
    };
    if (alerts.webhookSecret) headers["x-signature"] = signWebhookBody(alerts.webhookSecret, body);
    return post(alerts.webhookUrl, headers, body, timeoutMs, []);
  }
  const token = alerts.telegramBotToken;
  if (!token || !alerts.telegramChatId) return { ok: false, error: "Telegram is not configured" };
  const message = JSON.stringify({
    chat_id: alerts.telegramChatId,
    text: telegramText(body),
    disable_web_page_preview: true,
  });
  const url = `${alerts.telegramApiUrl.replace(/\/+$/, "")}/bot${token}/sendMessage`;
  return post(url, { "content-type": "application/json", "user-agent": USER_AGENT }, message, timeoutMs, [
    token,
  ]);
}

/** Plain text for Telegram: a marker for the state and severity, the text, then the details. */
export function telegramText(body: string): string {
  const b = JSON.parse(body) as {
    alert: string;
    severity: string;
    state: string;
    text: string;
    details: Record<string, unknown>;
    audit_head?: string | null;
    at: string;
  };
  const mark = b.state === "resolved" ? "RESOLVED" : b.severity === "critical" ? "CRITICAL" : "WARNING";
  const lines = Object.entries(b.details ?? {})
    .filter(([, v]) => v !== null && v !== "")
    .map(([k, v]) => `${k}: ${String(v)}`);
  // The head goes before the details: the 4,000-character cut may shorten those, never it.
  const head = b.audit_head ? [`audit head: ${b.audit_head}`] : [];
  return [`[${mark}] ${b.alert}`, b.text.slice(0, 2000), ...head, ...lines, b.at].join("\n").slice(0, 4000);
}

async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  secrets: string[],
): Promise<SendResult> {
  const scrub = (s: string) => secrets.reduce((acc, secret) => acc.split(secret).join("[redacted]"), s);
  try {
    const res = await request(url, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    // Read a little of the body (Telegram explains refusals there), drop the rest.
    let text = "";
    for await (const chunk of res.body) {
      if (text.length < 300) text += (chunk as Buffer).toString("utf8");
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true };
    const description = /"description"\s*:\s*"([^"]{0,120})/.exec(text)?.[1];
    return { ok: false, error: scrub(`HTTP ${res.statusCode}${description ? `: ${description}` : ""}`) };
  } catch (error) {
    const e = error as { name?: string; code?: string; message?: string };
    if (e.name === "TimeoutError" || e.name === "AbortError")
      return { ok: false, error: `timeout after ${timeoutMs} ms` };
    return { ok: false, error: scrub(e.code ?? e.name ?? "network error") };
  }
}
