// The devnet's JSON next to real java-tron responses (test/fixtures/tron-real, see its SOURCES.md): the
// same kinds of objects must have the same keys, omit the same defaults and fail the same way. Where
// the devnet differs on purpose the difference is named here and in devnet/README.md.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TronWeb } from "tronweb";
import type { Devnet } from "@stablegate/devnet";
import { freshDevnet, fund, hexToUtf8, newAccount, post, tronWebFor } from "./helpers.js";

const DIR = resolve(import.meta.dirname, "../fixtures/tron-real");
type Json = Record<string, unknown>;
const TRX = 1_000_000;

function real<T = Json>(file: string): T {
  return JSON.parse(readFileSync(join(DIR, file), "utf8")) as T;
}

/** Every key path of a JSON value; array elements merge under `[]`. */
function shape(v: unknown, prefix = "", out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) shape(x, prefix + "[]", out);
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      const p = prefix ? `${prefix}.${k}` : k;
      out.add(p);
      shape(x, p, out);
    }
  }
  return out;
}

function keys(v: unknown, drop: string[] = []): string[] {
  return [...shape(v)]
    .filter((k) => !drop.some((d) => k === d || k.startsWith(d + ".") || k.startsWith(d + "[")))
    .sort();
}

let devnet: Devnet;
let tw: TronWeb;

beforeAll(async () => {
  devnet = await freshDevnet();
  tw = tronWebFor(devnet);
});
afterAll(() => devnet.close());

async function send(tx: unknown, key: string): Promise<Json> {
  return (await tw.trx.sendRawTransaction((await tw.trx.sign(tx as never, key)) as never)) as unknown as Json;
}

async function infoOf(txid: string): Promise<Json> {
  devnet.mine(4);
  return post(devnet, "/wallet/gettransactioninfobyid", { value: txid });
}

async function usdtTransfer(
  from: { base58: string; privateKey: string },
  to: string,
  feeLimit = 100 * TRX,
): Promise<string> {
  const { transaction } = await tw.transactionBuilder.triggerSmartContract(
    devnet.usdtContract,
    "transfer(address,uint256)",
    { feeLimit },
    [
      { type: "address", value: to },
      { type: "uint256", value: 1_000_000 },
    ],
    from.base58,
  );
  return (await send(transaction, from.privateKey)).txid as string;
}

describe("devnet JSON against real java-tron responses", () => {
  it("has the real responses to compare with", () => {
    expect(existsSync(join(DIR, "SOURCES.md")), `${DIR} is missing`).toBe(true);
  });

  it("serves an empty block without `transactions`, with a zero txTrieRoot, keyed like a real one", async () => {
    const n = devnet.mine(1);
    const mine = await post(devnet, "/wallet/getblockbynum", { num: n });
    const theirs = real("getblockbynum-testnet-200-empty.json");
    expect(keys(mine)).toEqual(keys(theirs));
    expect(mine).not.toHaveProperty("transactions");
    expect((mine.block_header as { raw_data: Json }).raw_data.txTrieRoot).toBe("0".repeat(64));
    devnet.mine(3);
    const solid = await post(devnet, "/walletsolidity/getnowblock");
    expect(keys(solid)).toEqual(keys(real("walletsolidity-getnowblock-shasta-52799248-empty.json")));
  });

  it("serves transactions of each contract type with the key sets mainnet blocks show", async () => {
    const realTypes = new Map<string, Set<string>>();
    const blockFiles = [
      "getnowblock-mainnet-61132092.json",
      "getnowblock-mainnet-60954080.json",
      "getblockbynum-mainnet-60836289-visible.json",
    ];
    for (const f of blockFiles) {
      for (const tx of real<{ transactions: Json[] }>(f).transactions) {
        const c = (tx.raw_data as { contract: { type: string }[] }).contract[0] as { type: string };
        const set = realTypes.get(c.type) ?? new Set<string>();
        set.add(keys(tx, ["raw_data.contract[].Permission_id"]).join(" "));
        realTypes.set(c.type, set);
      }
    }
    const owner = await newAccount();
    const other = await newAccount();
    await fund(devnet, owner.base58, "100000", "10");
    await fund(devnet, other.base58, "1");
    const txids = [
      (await send(await tw.transactionBuilder.sendTrx(other.base58, 1, owner.base58), owner.privateKey)).txid,
      await usdtTransfer(owner, other.base58),
      (
        await send(
          await tw.transactionBuilder.freezeBalanceV2(50_000 * TRX, "ENERGY", owner.base58),
          owner.privateKey,
        )
      ).txid,
      (
        await send(
          await tw.transactionBuilder.delegateResource(10 * TRX, other.base58, "ENERGY", owner.base58),
          owner.privateKey,
        )
      ).txid,
      (
        await send(
          await tw.transactionBuilder.undelegateResource(10 * TRX, other.base58, "ENERGY", owner.base58),
          owner.privateKey,
        )
      ).txid,
    ];
    devnet.mine(1);
    const block = await post<{ transactions: Json[] }>(devnet, "/wallet/getnowblock");
    expect(block.transactions.map((t) => t.txID)).toEqual(txids);
    for (const tx of block.transactions) {
      const type = (tx.raw_data as { contract: { type: string }[] }).contract[0]?.type as string;
      expect([...(realTypes.get(type) ?? [])], type).toContain(keys(tx).join(" "));
    }
  });

  it("reports a burnt USDT transfer, a TRX transfer and an activation with real keys and fees", async () => {
    const payer = await newAccount();
    const holder = await newAccount();
    await fund(devnet, payer.base58, "100", "5");
    await fund(devnet, holder.base58, "1", "1");
    // USDT paid by burning TRX, bandwidth from the free allowance: 2022's mainnet shape
    const usdt = await infoOf(await usdtTransfer(payer, holder.base58));
    const burnt = real("gettransactioninfobyid-mainnet-225e55c4-usdt-2022.json");
    expect(keys(usdt, ["log"])).toEqual(keys(burnt, ["log"]));
    expect(keys((usdt.log as Json[])[0])).toEqual(keys((burnt.log as Json[])[0]));
    // mainnet's USDT returns a zero word from a successful transfer, and so does the devnet's
    expect(usdt.contractResult).toEqual(burnt.contractResult);
    expect(usdt.contractResult).toEqual(["0".repeat(64)]);
    // visible=true prints the contract and log addresses in base58, as mainnet 661f1df8
    const visible = await post(devnet, "/wallet/gettransactioninfobyid", { value: usdt.id, visible: true });
    const realVisible = real("gettransactioninfobyid-mainnet-661f1df8-usdt-visible.json");
    expect(visible.contract_address).toBe(devnet.usdtContract);
    expect((visible.log as Json[])[0]?.address).toBe(devnet.usdtContract);
    expect(((realVisible.log as Json[])[0]?.address as string).startsWith("T")).toBe(true);
    expect((visible.log as { topics: string[] }[])[0]?.topics).toEqual(
      (usdt.log as { topics: string[] }[])[0]?.topics,
    );
    // a TRX transfer on free bandwidth: Nile's transfers
    const trx = await infoOf(
      (await send(await tw.transactionBuilder.sendTrx(payer.base58, 5, holder.base58), holder.privateKey))
        .txid as string,
    );
    const nile = real<Json[]>("gettransactioninfobyblocknum-nile-71532743.json");
    expect(keys(trx)).toEqual(keys(nile[0]));
    // an activation: 0.1 TRX of bandwidth and the 1 TRX creation fee, exactly as Shasta's
    const fresh = await newAccount();
    const activation = await infoOf(
      (await send(await tw.transactionBuilder.sendTrx(fresh.base58, 1, payer.base58), payer.privateKey))
        .txid as string,
    );
    const shasta = real("gettransactioninfobyid-shasta-7c2d4206-trx-account-activation.json");
    expect(keys(activation)).toEqual(keys(shasta));
    expect([activation.fee, activation.receipt, activation.contractResult]).toEqual([
      shasta.fee,
      shasta.receipt,
      shasta.contractResult,
    ]);
  });

  it("reports staked-energy transfers and a failed call with result FAILED, hex resMessage and no log", async () => {
    const staker = await newAccount();
    const deposit = await newAccount();
    const holder = await newAccount();
    await fund(devnet, staker.base58, "100000");
    await fund(devnet, deposit.base58, "1", "5");
    await fund(devnet, holder.base58, "1", "1");
    await send(
      await tw.transactionBuilder.freezeBalanceV2(50_000 * TRX, "ENERGY", staker.base58),
      staker.privateKey,
    );
    await send(
      await tw.transactionBuilder.delegateResource(20_000 * TRX, deposit.base58, "ENERGY", staker.base58),
      staker.privateKey,
    );
    devnet.mine(1);
    // paid entirely with delegated energy: mainnet 985e1025 minus what the devnet never has
    // (origin_energy_usage: its contracts bill the caller 100 %; energy_penalty_total: no dynamic energy)
    const staked = await infoOf(await usdtTransfer(deposit, holder.base58));
    const real985 = real("gettransactioninfobyid-mainnet-985e1025-usdt.json");
    const devnetOnly = ["receipt.origin_energy_usage", "receipt.energy_penalty_total"];
    expect(keys(staked, ["fee", "log", "receipt.net_usage"])).toEqual(
      keys(real985, ["fee", "log", "receipt.net_fee", ...devnetOnly]),
    );
    expect(staked).not.toHaveProperty("fee"); // nothing burnt: java-tron omits a zero fee
    // OUT_OF_ENERGY within the stake (fee_limit caps the call): mainnet 13df06d5
    const deposit2 = await newAccount();
    await fund(devnet, deposit2.base58, "1", "5");
    await send(
      await tw.transactionBuilder.delegateResource(1_000 * TRX, deposit2.base58, "ENERGY", staker.base58),
      staker.privateKey,
    );
    const failed = await infoOf(await usdtTransfer(deposit2, holder.base58, 100_000));
    const real13d = real("gettransactioninfobyid-mainnet-13df06d5-usdt-OUT_OF_ENERGY.json");
    expect(keys(failed)).toEqual(keys(real13d, ["receipt.energy_penalty_total"]));
    expect(failed).toMatchObject({
      result: "FAILED",
      contractResult: [""],
      receipt: { result: "OUT_OF_ENERGY" },
    });
    expect(failed).not.toHaveProperty("log");
    for (const r of [failed, real13d])
      expect(hexToUtf8(r.resMessage as string)).toMatch(
        /^Not enough energy for '\w+' operation executing: curInvokeEnergyLimit\[\d+\]/,
      );
    // OUT_OF_ENERGY burning TRX: mainnet fb1ba8f0 (a swap, hence its internal_transactions)
    const poor = await newAccount();
    await fund(devnet, poor.base58, "2", "1");
    const burntFail = await infoOf(await usdtTransfer(poor, holder.base58));
    const realFb1 = real("gettransactioninfobyid-mainnet-fb1ba8f0-OUT_OF_ENERGY-swap.json");
    expect(keys(burntFail, ["receipt.net_usage"])).toEqual(
      keys(realFb1, [
        "internal_transactions",
        "receipt.net_fee",
        "receipt.energy_usage",
        "receipt.energy_penalty_total",
      ]),
    );
  });

  it("shows accounts and account resources with real keys and omitted defaults", async () => {
    const a = await newAccount();
    await fund(devnet, a.base58, "10");
    const fresh = await post(devnet, "/wallet/getaccount", { address: a.base58, visible: true });
    // TRC10 holdings are the only difference from a fresh real account
    const theirs = real("walletsolidity-getaccount-shasta-TVSTZkvV-visible.json");
    expect(keys(fresh)).toEqual(keys(theirs, ["assetV2", "free_asset_net_usageV2"]));

    // an account that used free bandwidth, staked bandwidth and staked energy, a day ago
    const b = await newAccount();
    const holder = await newAccount();
    await fund(devnet, b.base58, "100000", "3");
    await fund(devnet, holder.base58, "1", "1");
    await send(await tw.transactionBuilder.sendTrx(holder.base58, 1, b.base58), b.privateKey); // free
    await send(await tw.transactionBuilder.freezeBalanceV2(20_000 * TRX, "ENERGY", b.base58), b.privateKey);
    await send(await tw.transactionBuilder.freezeBalanceV2(1_000 * TRX, "BANDWIDTH", b.base58), b.privateKey);
    await usdtTransfer(b, holder.base58); // staked bandwidth and staked energy
    devnet.advanceClock(2 * 86_400_000);
    const used = await post(devnet, "/wallet/getaccount", { address: b.base58, visible: true });
    const tz4 = real("getaccount-shasta-TZ4UXDV5-visible.json");
    expect(keys(used, ["frozenV2[].amount"])).toEqual(keys(tz4));

    const res = await post(devnet, "/wallet/getaccountresource", { address: b.base58 });
    const staked = real("getaccountresource-mainnet-416e3b44.json");
    expect(keys(res, ["NetLimit"])).toEqual(keys(staked, ["assetNetUsed", "assetNetLimit"]));
    await send(await tw.transactionBuilder.sendTrx(holder.base58, 1, a.base58), a.privateKey); // free bandwidth
    devnet.mine(1);
    const plain = await post(devnet, "/wallet/getaccountresource", { address: a.base58 });
    const real464 = real("getaccountresource-mainnet-4146643e.json");
    expect(keys(plain)).toEqual(keys(real464, ["assetNetUsed", "assetNetLimit"]));
  });

  it("names its chain parameters as mainnet does", async () => {
    const mine = await post<{ chainParameter: { key: string; value?: number }[] }>(
      devnet,
      "/wallet/getchainparameters",
    );
    const theirs = new Set(
      real<{ chainParameter: { key: string }[] }>("getchainparameters-mainnet-2023.json").chainParameter.map(
        (p) => p.key,
      ),
    );
    for (const p of mine.chainParameter) expect(theirs, p.key).toContain(p.key);
    expect(mine.chainParameter.find((p) => p.key === "getAllowNewResourceModel")).toEqual({
      key: "getAllowNewResourceModel",
    });
  });

  it("answers broadcasts, estimates, constant calls and refusals in real shapes", async () => {
    const a = await newAccount();
    await fund(devnet, a.base58, "10", "1");
    const tx = await tw.transactionBuilder.sendTrx(devnet.faucetAddress, 1, a.base58);
    const unsigned = await post(devnet, "/wallet/broadcasttransaction", tx);
    const sigerror = real("broadcasttransaction-shasta-SIGERROR.json");
    expect(keys(unsigned)).toEqual(keys(sigerror));
    expect([unsigned.code, hexToUtf8(unsigned.message as string)]).toEqual([
      sigerror.code,
      hexToUtf8(sigerror.message as string),
    ]);
    expect(unsigned.txid).toBe(tx.txID);
    const ok = await post(devnet, "/wallet/broadcasttransaction", await tw.trx.sign(tx, a.privateKey));
    expect(keys(ok)).toEqual(keys(real("broadcasttransaction-shasta-success.json")));

    const call = {
      owner_address: a.base58,
      contract_address: devnet.usdtContract,
      function_selector: "balanceOf(address)",
      parameter: "0".repeat(24) + tw.address.toHex(a.base58).slice(2),
      visible: true,
    };
    const constant = await post(devnet, "/wallet/triggerconstantcontract", call);
    const realConstant = real("triggerconstantcontract-shasta-balanceOf-visible.json");
    expect(keys(constant)).toEqual(keys(realConstant));
    const estimate = await post(devnet, "/wallet/estimateenergy", call);
    expect(keys(estimate)).toEqual(keys(real("estimateenergy-shasta.json")));

    const noContract = await post(devnet, "/wallet/triggersmartcontract", {
      ...call,
      contract_address: undefined,
    });
    expect(noContract).toEqual(real("triggersmartcontract-shasta-OTHER_ERROR-no-contract-address.json"));
    const poor = await post(devnet, "/wallet/createtransaction", {
      owner_address: a.base58,
      to_address: devnet.faucetAddress,
      amount: 1_000_000 * TRX,
      visible: true,
    });
    expect(poor).toEqual(real("createtransaction-shasta-Error-balance-not-sufficient.json"));
    const created = await post(devnet, "/wallet/createtransaction", {
      owner_address: a.base58,
      to_address: devnet.faucetAddress,
      amount: 1000,
      visible: true,
    });
    expect(keys(created)).toEqual(keys(real("createtransaction-shasta-7182680f-visible.json")));
  });
});
