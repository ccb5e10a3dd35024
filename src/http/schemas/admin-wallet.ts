import { z } from "zod";
import { errorReply } from "./error-reply.js";
import { strayTransferReply } from "./resolutions.js";

const costWindow = z.object({ count: z.number().int(), total_trx: z.string(), average_trx: z.string() });
const modeCosts = z.object({ week: costWindow, total: costWindow });

export const familyPool = z.object({
  family: z.string().meta({ description: "tron or evm" }),
  total: z.number().int(),
  free: z.number().int(),
  allocated: z.number().int(),
});

const tokenBalance = z.object({
  currency: z.string(),
  balance: z.string().nullable().meta({ description: "6 decimals; null when the node did not answer" }),
});

const wei = (what: string) => z.string().meta({ description: `${what}, in wei (an integer)` });
const native = (what: string) => z.string().meta({ description: `${what}, exact, with 18 decimals` });
const evmCostWindow = z.object({
  count: z.number().int().meta({ description: "token legs swept in the window" }),
  gas_cost_wei: wei("the top-ups' own gas"),
  gas_cost: native("the top-ups' own gas"),
  sweep_gas_cost_wei: wei("the sweep transactions' gas"),
  sweep_gas_cost: native("the sweep transactions' gas"),
  total_wei: wei("gas_cost + sweep_gas_cost"),
  total: native("gas_cost + sweep_gas_cost"),
  average_wei: wei("total per leg, rounded down to the wei"),
  average: native("total per leg, rounded down to the wei"),
});

const evmSweepCost = z.object({
  chain: z.string(),
  native_symbol: z.string().meta({ description: "the coin that pays gas: ETH, BNB, POL" }),
  sweeps: z.number().int().meta({ description: "token legs swept" }),
  gas_cost_wei: wei("the top-ups' own gas"),
  gas_cost: native("the top-ups' own gas"),
  sweep_gas_cost_wei: wei("the sweep transactions' gas"),
  sweep_gas_cost: native("the sweep transactions' gas"),
  total_wei: wei("gas_cost + sweep_gas_cost"),
  total: native("gas_cost + sweep_gas_cost"),
  dust_wei: wei("the native coin left on swept addresses (each address's latest sweep)"),
  dust: native("the native coin left on swept addresses (each address's latest sweep)"),
  windows: z.object({ week: evmCostWindow, total: evmCostWindow }).meta({
    description:
      "as TRON's modes: the last 7 UTC days (today included) and all time, by when each leg was swept; the flat figures above are all time",
  }),
});

const evmWallet = z.object({
  chain: z.string(),
  native_symbol: z.string().meta({ description: "the coin that pays gas: ETH, BNB, POL" }),
  hot_wallet: z
    .object({
      address: z.string(),
      native_balance: z
        .string()
        .nullable()
        .meta({ description: "18 decimals, exact; null when the node did not answer" }),
      tokens: z.array(tokenBalance),
    })
    .nullable(),
  cold_wallet: z.object({ address: z.string(), tokens: z.array(tokenBalance) }).nullable(),
  read_at: z.string().nullable(),
  balance_error: z
    .string()
    .optional()
    .meta({ description: "present when the node did not answer: the figures are the last good ones" }),
});

const walletStatusReply = z.object({
  hot_wallet: z
    .object({
      address: z.string(),
      trx_balance: z.string(),
      usdt_balance: z.string().nullable().describe("USDT read from the node; null when it did not answer"),
      is_low_balance: z.boolean(),
      balance_error: z.string().optional(),
    })
    .nullable(),
  cold_wallet: z
    .object({
      address: z.string(),
      usdt_balance: z.string().nullable().describe("USDT read from the node; null when it did not answer"),
      balance_error: z.string().optional().describe("present when the node could not be asked"),
    })
    .nullable(),
  address_pool: z.object({ total: z.number().int(), free: z.number().int(), allocated: z.number().int() }),
  address_pools: z
    .array(familyPool)
    .meta({ description: "each chain family's pool; address_pool is their sum" }),
  evm_wallets: z.array(evmWallet).meta({
    description:
      "each enabled EVM chain's hot wallet (native and token balances) and cold wallet (token balances), read from its node at most every 10 s",
  }),
  sweep_queue: z.object({ waiting: z.number().int(), active: z.number().int(), failed: z.number().int() }),
  stake: z
    .object({
      staked_trx: z.string(),
      energy_limit: z.number().int(),
      energy_available: z.number().int(),
      energy_in_use: z.number().int(),
      delegations_open: z.number().int(),
      stake_error: z.string().optional(),
    })
    .nullable(),
  sweep_costs: z.object({
    burn: modeCosts,
    delegate: modeCosts,
    evm: z.array(evmSweepCost).meta({
      description:
        "each EVM chain's sweeps in its native coin, all time and per window (evm_sweep_legs; docs/evm-sweeps.md)",
    }),
  }),
  system: z.object({
    chain_network: z.string(),
    usdt_contract: z.string().nullable(),
    node_api_url: z.string().nullable(),
    chain_explorer_base_url: z.string().nullable(),
    tx_explorer_base_url: z.string().nullable(),
    address_explorer_base_url: z.string().nullable(),
    sweep_enabled: z.boolean(),
    sweep_mode: z.string(),
    hot_wallet_alert_trx: z.number(),
  }),
});

export const getWalletSchema = {
  tags: ["admin"],
  summary: "Hot and cold wallet, address pool, sweep queue and system settings",
  security: [{ adminCookie: [] }],
  response: { 200: walletStatusReply, 401: errorReply },
};

export const retrySweepSchema = {
  tags: ["admin"],
  summary: "Re-enqueue the failed sweep of an order",
  security: [{ adminCookie: [] }],
  params: z.object({ id: z.string().max(100) }),
  response: { 200: z.object({ ok: z.literal(true) }), 401: errorReply, 404: errorReply, 409: errorReply },
};

export const retryStraySweepSchema = {
  tags: ["admin"],
  summary:
    "Re-enqueue the sweep of a stray transfer's address: a failed one, or dust left below SWEEP_MIN_USDT",
  security: [{ adminCookie: [] }],
  params: z.object({ id: z.string().max(100) }),
  response: {
    200: strayTransferReply,
    401: errorReply,
    403: errorReply,
    404: errorReply,
    409: errorReply,
  },
};
