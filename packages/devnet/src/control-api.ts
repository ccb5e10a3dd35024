// /devnet/* control endpoints: never subject to faults, never counted as node requests.
import { isHexAddress, isValidAddress, toBase58, toHex } from "@stablegate/tron/address";
import type { Chain } from "./chain.js";
import { Refusal } from "./execute.js";
import type { Faults } from "./faults.js";
import type { LoadGenerator } from "./load.js";
import { parseIntString, parseUnits6 } from "./util.js";

export class BadRequest extends Error {}

export interface ControlCtx {
  chain: Chain;
  faults: Faults;
  load: LoadGenerator;
  counters: { total: number; byPath: Map<string, number> };
  blockTimeMs: number;
}

type Body = Record<string, unknown>;

function addressOf(v: unknown): string {
  if (typeof v !== "string" || !(isValidAddress(v) || isHexAddress(v))) {
    throw new BadRequest("address must be a base58 or 41-hex TRON address");
  }
  return toHex(v);
}

/** "12.5" whole units (6 decimals) or an integer string of base units; undefined when absent. */
function amount(whole: unknown, base: unknown, name: string): bigint {
  try {
    if (base !== undefined) return parseIntString(String(base));
    if (whole !== undefined) return parseUnits6(String(whole));
  } catch (e) {
    throw new BadRequest(`${name}: ${(e as Error).message}`);
  }
  return 0n;
}

function positiveInt(v: unknown, name: string, dflt: number, max: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > max) {
    throw new BadRequest(`${name} must be an integer between 1 and ${max}`);
  }
  return v;
}

export function info(ctx: ControlCtx): Body {
  const c = ctx.chain;
  return {
    head: c.head.number,
    head_id: c.head.id,
    solidified: c.solidifiedNumber,
    usdt_contract: toBase58(c.usdt.address),
    faucet_address: toBase58(c.faucet),
    block_time_ms: ctx.blockTimeMs,
    head_timestamp: c.head.timestamp,
    clock_offset_ms: c.clockOffsetMs,
    stake: {
      total_energy_limit: c.params.totalEnergyLimit,
      total_energy_weight: c.params.totalEnergyWeight,
      unfreeze_delay_ms: c.params.unfreezeDelayMs,
    },
    solidify_after: c.solidifyAfter,
    pending: c.pending.length,
    tokens: [...c.state.tokens.values()].map((t) => ({
      address: toBase58(t.address),
      name: t.name,
      symbol: t.symbol,
      decimals: t.decimals,
    })),
    faults: ctx.faults.config,
    requests: { total: ctx.counters.total, by_path: Object.fromEntries(ctx.counters.byPath) },
  };
}

export function resetRequests(ctx: ControlCtx): Body {
  ctx.counters.total = 0;
  ctx.counters.byPath.clear();
  return { ok: true };
}

export function mine(ctx: ControlCtx, body: Body): Body {
  const n = positiveInt(body.blocks, "blocks", 1, 10_000);
  const blocks = ctx.chain.mine(n);
  return {
    blocks: blocks.map((b) => ({ number: b.number, id: b.id, transactions: b.txs.length })),
    head: ctx.chain.head.number,
  };
}

/** Moves the chain's clock forward (energy and bandwidth recover, unfreezes and locks expire). */
export function time(ctx: ControlCtx, body: Body): Body {
  const ms = body.advance_ms;
  if (typeof ms !== "number" || !Number.isSafeInteger(ms) || ms < 1 || ms > 10 * 365 * 86_400_000) {
    throw new BadRequest("advance_ms must be a positive integer of milliseconds (at most 10 years)");
  }
  const b = ctx.chain.advanceClock(ms);
  return { head: b.number, timestamp: b.timestamp, clock_offset_ms: ctx.chain.clockOffsetMs };
}

export function fund(ctx: ControlCtx, body: Body): Body {
  const c = ctx.chain;
  const to = addressOf(body.address);
  const trx = amount(body.trx, body.trx_sun, "trx");
  const usdt = amount(body.usdt, body.usdt_units, "usdt");
  if (trx === 0n && usdt === 0n) throw new BadRequest("give trx, trx_sun, usdt or usdt_units");
  let txids: string[];
  try {
    txids = c.fund(to, trx, usdt);
  } catch (e) {
    if (e instanceof Refusal) throw new BadRequest(`${e.code}: ${e.message}`);
    throw e;
  }
  const [block] = c.mine(1);
  // solidify: true also mines until that block is solidified, for callers reading /walletsolidity.
  if (body.solidify === true) c.mine(c.solidifyAfter);
  return { address: toBase58(to), txids, block: block?.number, head: c.head.number };
}

export function tokens(ctx: ControlCtx, body: Body): Body {
  const { name, symbol, decimals } = body;
  if (typeof name !== "string" || !name || name.length > 64)
    throw new BadRequest("name must be a string (1-64)");
  if (typeof symbol !== "string" || !/^[A-Za-z0-9]{1,16}$/.test(symbol)) {
    throw new BadRequest("symbol must be 1-16 letters or digits");
  }
  if (typeof decimals !== "number" || !Number.isInteger(decimals) || decimals < 0 || decimals > 36) {
    throw new BadRequest("decimals must be an integer between 0 and 36");
  }
  const t = ctx.chain.createToken(name, symbol, decimals);
  return { address: toBase58(t.address), name, symbol, decimals, owner: toBase58(t.owner) };
}

export function faults(ctx: ControlCtx, body: Body): Body {
  try {
    return { faults: ctx.faults.configure(body) };
  } catch (e) {
    throw new BadRequest((e as Error).message);
  }
}

export function fork(ctx: ControlCtx, body: Body): Body {
  const depth = body.depth;
  if (typeof depth !== "number" || !Number.isInteger(depth) || depth < 1) {
    throw new BadRequest("depth must be a positive integer");
  }
  const c = ctx.chain;
  const dropped = [];
  for (let n = c.head.number - depth + 1; n <= c.head.number; n++) {
    const b = c.blockByNum(n);
    if (b) dropped.push({ number: b.number, id: b.id, transactions: b.txs.map((t) => t.id) });
  }
  try {
    const blocks = c.fork(depth);
    return { dropped, blocks: blocks.map((b) => ({ number: b.number, id: b.id })), head: c.head.number };
  } catch (e) {
    if (e instanceof Refusal) throw new BadRequest(e.message);
    throw e;
  }
}

export function load(ctx: ControlCtx, body: Body): Body {
  if (body.blocks === undefined) throw new BadRequest("blocks is required");
  const blocks = positiveInt(body.blocks, "blocks", 1, 100_000);
  const txPerBlock = positiveInt(body.tx_per_block, "tx_per_block", 300, 10_000);
  const usdtPerBlock =
    body.usdt_per_block === 0 ? 0 : positiveInt(body.usdt_per_block, "usdt_per_block", 100, 10_000);
  if (body.to_addresses !== undefined && !Array.isArray(body.to_addresses)) {
    throw new BadRequest("to_addresses must be an array of addresses");
  }
  const toAddresses = (body.to_addresses as unknown[] | undefined)?.map(addressOf);
  if (body.usdt_amount !== undefined) amount(body.usdt_amount, undefined, "usdt_amount");
  const started = performance.now();
  const r = ctx.load.run({
    blocks,
    txPerBlock,
    usdtPerBlock,
    toAddresses,
    usdtAmount: body.usdt_amount === undefined ? undefined : String(body.usdt_amount),
  });
  return {
    from: r.from,
    to: r.to,
    transactions: r.transactions,
    ms: Math.round(performance.now() - started),
  };
}
