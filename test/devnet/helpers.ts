import { TronWeb } from "tronweb";
import { startDevnet, type Devnet, type DevnetOptions } from "@stablegate/devnet";

export async function freshDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  return startDevnet({ blockTimeMs: 0, solidifyAfter: 3, quiet: true, ...opts });
}

export function tronWebFor(devnet: Devnet, privateKey: string = devnet.faucetKey): TronWeb {
  return new TronWeb({ fullHost: devnet.url, privateKey });
}

export async function post<T = Record<string, unknown>>(
  devnet: Devnet,
  path: string,
  body: unknown = {},
): Promise<T> {
  const res = await fetch(devnet.url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await res.json()) as T;
}

export async function postStatus(
  devnet: Devnet,
  path: string,
  body: unknown = {},
): Promise<{ status: number; text: string }> {
  const res = await fetch(devnet.url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

export async function newAccount(): Promise<{ privateKey: string; base58: string; hex: string }> {
  const a = await TronWeb.createAccount();
  return { privateKey: a.privateKey, base58: a.address.base58, hex: a.address.hex.toLowerCase() };
}

export function hexToUtf8(hex: string): string {
  return Buffer.from(hex, "hex").toString("utf8");
}

/** Funds `address` from the faucet and mines until the funding is solidified. */
export async function fund(devnet: Devnet, address: string, trx: string, usdt?: string): Promise<void> {
  const r = await postStatus(devnet, "/devnet/fund", {
    address,
    trx,
    ...(usdt ? { usdt } : {}),
    solidify: true,
  });
  if (r.status !== 200) throw new Error(`fund failed: ${r.text}`);
}

export type Info = {
  id: string;
  fee?: number;
  blockNumber: number;
  contractResult: string[];
  contract_address?: string;
  receipt: {
    energy_fee?: number;
    energy_usage_total?: number;
    net_usage?: number;
    net_fee?: number;
    result?: string;
  };
  log?: { address: string; topics: string[]; data: string }[];
  result?: string;
  resMessage?: string;
};
